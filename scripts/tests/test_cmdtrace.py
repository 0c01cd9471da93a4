# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of scripts/lib/cmdtrace.py: parsing the model's command trace, phases,
the comparison of two drivers' traces and the check against Documentation/silicon.md.

Run: python3 -m unittest discover -s scripts/tests -t scripts/tests
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))
import cmdtrace  # noqa: E402

HDR = "status=0x00 syndrome=0x00000000"


def trace(bringup, teardown, body=()):
    """A trace: @body, then the marked teardown and bring-up phases (lists of lines
    without seq/usec)."""
    lines, seq = [], 0
    for part, mark in ((body, None), (teardown, "teardown"), (bringup, "bringup"),
                       ((), "end")):
        if mark:
            lines.append(f"# mark {mark}")
        for ln in part:
            lines.append(f"{seq} {seq * 10} {ln}")
            seq += 1
    return "\n".join(lines) + "\n"


BRINGUP = [f"ENABLE_HCA op_mod=0x0 {HDR} function_id=0x0",
           f"QUERY_ISSI op_mod=0x0 {HDR}",
           f"SET_ISSI op_mod=0x0 {HDR} current_issi=0x1",
           f"QUERY_PAGES op_mod=0x1 {HDR} function_id=0x0",
           f"MANAGE_PAGES op_mod=0x1 {HDR} function_id=0x0 input_num_entries=~0x10",
           f"INIT_HCA op_mod=0x0 {HDR}"]
TEARDOWN = [f"TEARDOWN_HCA op_mod=0x0 {HDR} profile=0x0",
            f"MANAGE_PAGES op_mod=0x2 {HDR} function_id=0x0 input_num_entries=~0x50",
            f"DISABLE_HCA op_mod=0x0 {HDR} function_id=0x0"]
QP = f"CREATE_QP op_mod=0x0 {HDR} st=0x0 pd=#0x3 log_sq_size=~0x6 cs_req=0x0"


class Parse(unittest.TestCase):
    def test_fields_by_kind_and_marks(self):
        recs = cmdtrace.parse(trace(BRINGUP, TEARDOWN, [QP]))
        self.assertEqual(recs[0]["name"], "CREATE_QP")
        self.assertEqual(recs[0]["fields"]["pd"], ("#", 3))
        self.assertEqual(recs[0]["fields"]["log_sq_size"], ("~", 6))
        self.assertEqual(recs[0]["fields"]["cs_req"], ("", 0))
        self.assertEqual(recs[1], {"mark": "teardown"})

    def test_garbage_is_an_error_naming_the_line(self):
        with self.assertRaisesRegex(cmdtrace.TraceError, "line 2"):
            cmdtrace.parse("0 0 NOP op_mod=0x0 " + HDR + "\nhello\n")

    def test_phases(self):
        recs = cmdtrace.parse(trace(BRINGUP, TEARDOWN, [QP]))
        self.assertEqual([r["name"] for r in cmdtrace.phase(recs, "teardown")],
                         ["TEARDOWN_HCA", "MANAGE_PAGES", "DISABLE_HCA"])
        self.assertEqual(len(cmdtrace.phase(recs, "bringup")), len(BRINGUP))
        with self.assertRaisesRegex(cmdtrace.TraceError, "no '# mark teardown'"):
            cmdtrace.phase(cmdtrace.parse("0 0 NOP op_mod=0x0 " + HDR + "\n"), "teardown")

    def test_summary_counts_failures(self):
        recs = cmdtrace.parse(f"0 0 NOP op_mod=0x0 {HDR}\n"
                              "1 1 NOP op_mod=0x0 status=0x03 syndrome=0x11000002\n")
        self.assertEqual(cmdtrace.summary(recs), {"NOP/0x0": [2, 1]})


class Compare(unittest.TestCase):
    def test_identical_traces_have_no_difference(self):
        t = cmdtrace.parse(trace(BRINGUP, TEARDOWN, [QP]))
        self.assertEqual(cmdtrace.compare(t, t), [])

    def test_references_and_sizes_do_not_count(self):
        a = cmdtrace.parse(trace(BRINGUP, TEARDOWN, [QP]))
        b = cmdtrace.parse(trace(BRINGUP, TEARDOWN, [QP.replace("pd=#0x3", "pd=#0x9")
                                                      .replace("~0x6", "~0x8")]))
        self.assertEqual(cmdtrace.compare(a, b), [])

    def test_each_kind_of_difference(self):
        a = cmdtrace.parse(trace(BRINGUP, TEARDOWN, [QP]))
        b_bring = [BRINGUP[0], BRINGUP[1], BRINGUP[2], BRINGUP[3], BRINGUP[4],
                   f"SET_HCA_CAP op_mod=0x0 {HDR} cmdif_checksum=0x0", BRINGUP[5]]
        b_tear = [TEARDOWN[0],
                  "MANAGE_PAGES op_mod=0x2 status=0x03 syndrome=0x10000000",
                  TEARDOWN[2]]
        b = cmdtrace.parse(trace(b_bring, b_tear, [QP.replace("cs_req=0x0", "cs_req=0x20"),
                                                   QP.replace("pd=#0x3", "pd=#0x0")]))
        d = cmdtrace.compare(a, b)
        self.assertIn("bringup.only-mlx5: SET_HCA_CAP/0x0", d)
        self.assertIn("teardown.failed-mlx5: MANAGE_PAGES/0x2 status=0x03", d)
        self.assertIn("CREATE_QP[st=0x0].cs_req: cxib {0x0} mlx5 {0x0, 0x20}", d)
        self.assertIn("CREATE_QP[st=0x0].pd: cxib {set} mlx5 {0, set}", d)
        self.assertIn("SET_HCA_CAP[op_mod=0x0]: only mlx5", d)

    def test_prm_order(self):
        a = cmdtrace.parse(trace(BRINGUP, TEARDOWN))
        swapped = [BRINGUP[0], BRINGUP[3], BRINGUP[4], BRINGUP[1], BRINGUP[2], BRINGUP[5]]
        d = cmdtrace.compare(cmdtrace.parse(trace(swapped, TEARDOWN)), a)
        self.assertIn("bringup.order: QUERY_PAGES < QUERY_ISSI under cxib, "
                      "QUERY_ISSI < QUERY_PAGES under mlx5", d)


class Known(unittest.TestCase):
    def test_document_rows_explain_and_go_stale(self):
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("## Keys\n| key | meaning |\n|---|---|\n| `other: Z` | not a difference |\n"
                    "## Differences that remain\n| difference | why |\n|---|---|\n"
                    "| `bringup.only-mlx5: SET_HCA_CAP/0x0` | cxib keeps the defaults |\n"
                    "| `gone: X` | no longer true |\n## Fixed\n| `old: W` | fixed |\n")
        try:
            explained = cmdtrace.known(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(explained, ["bringup.only-mlx5: SET_HCA_CAP/0x0", "gone: X"])
        new, stale = cmdtrace.check(["bringup.only-mlx5: SET_HCA_CAP/0x0", "new: Y"],
                                    explained)
        self.assertEqual((new, stale), (["new: Y"], ["gone: X"]))

    def test_rows_tagged_with_a_kernel_series_count_only_for_it(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("## Differences that remain\n| difference | why |\n|---|---|\n"
                    "| `a: A` | both |\n| `6.1: b: B` | 6.1 only |\n| `6.12: c: C` | 6.12 |\n")
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(cmdtrace.known(f.name, "6.1"), ["a: A", "b: B"])
        self.assertEqual(cmdtrace.known(f.name, "6.12"), ["a: A", "c: C"])
        self.assertEqual(cmdtrace.known(f.name), ["a: A"])
        self.assertEqual(cmdtrace.kernel_series("6.1.0-57-amd64"), "6.1")
        self.assertEqual(cmdtrace.kernel_series("6.12.117+deb12-amd64"), "6.12")
        self.assertIsNone(cmdtrace.kernel_series(""))

    def test_main_fails_on_unexplained_and_passes_when_explained(self):
        d = tempfile.mkdtemp()
        a, b, doc = (os.path.join(d, n) for n in ("a", "b", "known"))
        with open(a, "w") as f:
            f.write(trace(BRINGUP, TEARDOWN, [QP]))
        with open(b, "w") as f:
            f.write(trace(BRINGUP, TEARDOWN, [QP.replace("cs_req=0x0", "cs_req=0x20")]))
        with open(doc, "w") as f:
            f.write("## Differences that remain\n| difference | why |\n|---|---|\n")
        devnull = open(os.devnull, "w")
        old_out, old_err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = devnull
        try:
            self.assertEqual(cmdtrace.main(["compare", a, b, "--known", doc]), 1)
            with open(doc, "a") as f:
                f.write("| `CREATE_QP[st=0x0].cs_req: cxib {0x0} mlx5 {0x20}` | why |\n")
            self.assertEqual(cmdtrace.main(["compare", a, b, "--known", doc]), 0)
            self.assertEqual(cmdtrace.main(["compare", a, os.path.join(d, "none")]), 2)
            with open(doc, "w") as f:
                f.write("# no section\n")
            self.assertEqual(cmdtrace.main(["compare", a, b, "--known", doc]), 2)
        finally:
            sys.stdout, sys.stderr = old_out, old_err
            devnull.close()


if __name__ == "__main__":
    unittest.main()
