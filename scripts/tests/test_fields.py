# SPDX-License-Identifier: GPL-2.0-only
"""The field accessors of include/cxib/bits.h refuse, at compile time, a field whose macro
names its structure when it is applied to a pointer to another structure; an untyped buffer
and the right structure compile.  Checked with the host compiler under the model's flags
and, where it is installed, with sparse (the kernel's C=2 checker).

Run: python3 -m unittest discover -s scripts/tests -t scripts/tests
"""

import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + os.path.join(TOP, "include")]
HEAD = "#include <cxib/wqe.h>\n#include <cxib/eq.h>\n#include <cxib/verbs.h>\n#include <cxib/cmd.h>\n"
REFUSED = "__cxib_field_of_another_structure"


def compile_c(body: str, tool: list[str]) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.c")
        with open(src, "w") as f:
            f.write(HEAD + body)
        return subprocess.run(tool + CFLAGS + [src], capture_output=True, text=True)


CC = ["cc", "-fsyntax-only"]
GOOD = """
unsigned int f(const struct cxib_cqe64 *cqe, const void *buf, const __u8 *b, __be32 *w,
	       struct cxib_destroy_eq_in *in);
unsigned int f(const struct cxib_cqe64 *cqe, const void *buf, const __u8 *b, __be32 *w,
	       struct cxib_destroy_eq_in *in)
{
	CXIB_SET(w, CXIB_CQE_QPN, 5);
	CXIB_SET(in, CXIB_DESTROY_EQ_IN_EQ_NUMBER, 7);
	CXIB_SET(in, CXIB_CMD_IN_OPCODE, CXIB_CMD_OP_DESTROY_EQ);	/* the shared header */
	CXIB_SET64(w, CXIB_CQE_TIMESTAMP, 1);
	return CXIB_GET(cqe, CXIB_CQE_QPN) + CXIB_GET(buf, CXIB_CQE_OPCODE) +
	       (unsigned int)CXIB_GET64(cqe, CXIB_CQE_TIMESTAMP) +
	       CXIB_GET(b, CXIB_CQE_WQE_COUNTER) + CXIB_FIELD_GET(CXIB_CQE_OPCODE, 0x50) +
	       CXIB_FIELD_PREP(CXIB_CQE_SE, 1) + CXIB_FIELD_MAX(CXIB_CQE_QPN) +
	       CXIB_OFFSET(CXIB_CQE_QPN) + CXIB_FMASK(CXIB_CQE_OWNER) + CXIB_DW(CXIB_CQE_SE);
}
"""
BAD_GET = """
unsigned int g(const struct cxib_eqe *eqe);
unsigned int g(const struct cxib_eqe *eqe)
{
	return CXIB_GET(eqe, CXIB_CQE_QPN);
}
"""
BAD_OTHERS = [  # (pointer type, field of another structure)
    ("struct cxib_cqe64", "CXIB_EQE_EVENT_TYPE"),
    ("struct cxib_cqc", "CXIB_QPC_MTU"),
    ("struct cxib_qpc", "CXIB_SRQC_LOG_SRQ_SIZE"),
    ("struct cxib_mkc", "CXIB_CQC_LOG_CQ_SIZE"),
    ("struct cxib_wqe_data_seg", "CXIB_WQE_CTRL_OPCODE"),
    ("struct cxib_hca_vport_context", "CXIB_HCA_CAP_LOG_MAX_QP"),
    ("struct cxib_hca_cap", "CXIB_CMD_ENTRY_TYPE"),
    ("struct cxib_destroy_eq_in", "CXIB_QUERY_EQ_IN_EQ_NUMBER"),
    ("struct cxib_create_qp_out", "CXIB_CREATE_CQ_OUT_CQN"),
    ("struct cxib_query_issi_in", "CXIB_QUERY_ISSI_OUT_CURRENT_ISSI"),
    ("struct cxib_rmpc", "CXIB_WQC_LWM"),
    ("struct cxib_xrc_srqc", "CXIB_SRQC_LWM"),
    ("struct cxib_qpc", "CXIB_ADS_RLID"),
    ("struct cxib_hca_cap", "CXIB_ATOMIC_CAP_OPERATIONS"),
    ("struct cxib_reg_pmtu", "CXIB_REG_PTYS_LOCAL_PORT"),
    ("struct cxib_query_q_counter_out", "CXIB_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID"),
]
BAD_64 = [  # (pointer type, 64-bit field of another structure)
    ("struct cxib_eqe", "CXIB_CQE_TIMESTAMP"),
    ("struct cxib_cqc", "CXIB_QPC_DBR_ADDR"),
    ("struct cxib_wqe_data_seg", "CXIB_WQE_RADDR_RADDR"),
]
NOT_64 = """
unsigned long long n(const struct cxib_cqe64 *cqe);
unsigned long long n(const struct cxib_cqe64 *cqe)
{
	return CXIB_GET64(cqe, CXIB_CQE_QPN);
}
"""
BAD_SET = """
void h(struct cxib_eqe *eqe);
void h(struct cxib_eqe *eqe)
{
	CXIB_SET(eqe, CXIB_CQE_OPCODE, 1);
}
"""


@unittest.skipIf(shutil.which("cc") is None, "no C compiler")
class FieldOfAnotherStructure(unittest.TestCase):
    def test_the_right_structure_and_untyped_buffers_compile(self):
        r = compile_c(GOOD, CC)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")   # no warnings either

    def test_a_cqe_field_read_through_an_eqe_pointer_is_refused(self):
        r = compile_c(BAD_GET, CC)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(REFUSED, r.stderr)

    def test_a_cqe_field_written_through_an_eqe_pointer_is_refused(self):
        r = compile_c(BAD_SET, CC)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(REFUSED, r.stderr)

    def refused_through(self, pairs, ret: str, get: str) -> None:
        """Each (pointer type, field) of @pairs read with @get must not compile."""
        for ptype, field in pairs:
            body = (f"{ret} k(const {ptype} *x);\n"
                    f"{ret} k(const {ptype} *x) {{ return {get}(x, {field}); }}\n")
            r = compile_c(body, CC)
            self.assertNotEqual(r.returncode, 0, f"{field} through {ptype} compiled")
            self.assertIn(REFUSED, r.stderr)

    def test_every_tagged_structure_refuses_the_fields_of_another(self):
        self.refused_through(BAD_OTHERS, "unsigned int", "CXIB_GET")

    def test_64bit_fields_refuse_another_structure(self):
        self.refused_through(BAD_64, "unsigned long long", "CXIB_GET64")

    def test_get64_refuses_a_32bit_field(self):
        r = compile_c(NOT_64, CC)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("__cxib_not_a_64bit_field", r.stderr)

    @unittest.skipIf(shutil.which("sparse") is None, "sparse is not installed")
    def test_sparse_accepts_the_check_and_refuses_the_wrong_structure(self):
        good = compile_c(GOOD, ["sparse"])
        self.assertNotIn("error", good.stderr + good.stdout)
        bad = compile_c(BAD_GET, ["sparse"])
        self.assertIn("error", bad.stderr + bad.stdout)


if __name__ == "__main__":
    unittest.main()
