// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustock: what the stock libibverbs + libmlx5 do on their own that a driver must accept.
 * Each case creates its objects through the stock library and then moves UD traffic
 * through them (the device's loopback: dlid = own LID), comparing the payload byte for
 * byte:
 *
 *   pd_alloc         the QP and SRQ of a parent domain with alloc/free callbacks: their
 *                    buffers and doorbell records come from the callbacks (posix_memalign
 *                    at the alignment libmlx5 asks for; a QP buffer is then only aligned
 *                    to its stride, not to a page); with the QP's own RQ; with the MR and
 *                    AH on the parent domain too
 *   pd_exact         the same with memory aligned to exactly what libmlx5 asks for
 *   pd_line          the same with 64-byte (cache line) alignment whatever libmlx5 asks
 *                    for: the SRQ buffer off a page too
 *   prefer_huge      MLX_{QP,SRQ,CQ}_ALLOC_TYPE=PREFER_HUGE (and MLX5_ALLOC_TYPE, which
 *                    libmlx5 does not read): libmlx5 tries huge pages and falls back to
 *                    normal pages when there are none
 *   devx_uar         mlx5dv_devx_alloc_uar() answers with a UAR or with EOPNOTSUPP (what
 *                    libmlx5's users take as "not supported"), and traffic still works
 *
 *	ustock [cxib_0]		(USTOCK_VERBOSE=1: print the allocator's calls)
 *	ustock --fragment MIB	hold every other page of MIB MiB until killed: the memory
 *				allocated meanwhile comes in single scattered pages (the
 *				pingpong scenario's large MR then needs 4 KiB translations)
 *
 * Built on the host against libibverbs-dev (mk/kverbs.mk), run in the lab guests with their
 * own rdma-core 44 libraries by the uverbs_neg scenario (case stock_lib).
 *
 * Prints "ok"/"FAIL" per check and exits 0 only if every check passed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#define QKEY	0x11111111
#define MSG	256
#define GRH	40

static int failures, passes;
static const char *devname = "cxib_0";

static void check(const char *what, int good, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(const char *what, int good, const char *fmt, ...)
{
	va_list ap;

	printf("%s %-40s ", good ? "ok  " : "FAIL", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (good)
		passes++;
	else
		failures++;
}

/* ---- the parent domain's allocator ---- */
static unsigned int nalloc[8], nfree;
/* libmlx5's resource types are (RDMA_DRIVER_MLX5 << 32) + a small number */
#define RT(t)	((unsigned int)((t) & 7))

/*
 * The parent domain's pd_context says how the allocator aligns:
 *   PD_ASKED  posix_memalign() at the alignment libmlx5 asks for
 *   PD_EXACT  exactly that alignment and never more (a small QP buffer then never starts
 *             on a page)
 *   PD_LINE   64 bytes (a cache line) whatever libmlx5 asks for, as an allocator that
 *             hands out cache-aligned memory does: SRQ buffers off a page too.  The
 *             memory starts 64 bytes into a page: an SRQ ring further into its page than
 *             2 KiB cannot be an RMP at ISSI 1 (its page_offset has 5 bits of page size
 *             / 64), which mlx5_ib refuses with EINVAL as cxib does
 * The bytes skipped before the memory are remembered in the word in front of it.
 */
enum { PD_ASKED, PD_EXACT, PD_LINE };
static const char *const pd_mode_name[] = { "pd_alloc", "pd_exact", "pd_line" };

static void *pd_alloc(struct ibv_pd *pd, void *pd_context, size_t size, size_t alignment,
		      uint64_t resource_type)
{
	size_t pad = 0;
	void *p;

	(void)pd;
	if (alignment < sizeof(void *))
		alignment = sizeof(void *);
	if (pd_context == (void *)PD_LINE) {
		pad = 64;
		if (posix_memalign(&p, 4096, size + pad))
			return NULL;
	} else if (pd_context) {
		pad = alignment < 16 ? 16 : alignment;
		if (posix_memalign(&p, 2 * pad, size + pad))
			return NULL;
	} else if (posix_memalign(&p, alignment, size)) {
		return NULL;
	}
	p = (char *)p + pad;
	if (pd_context)
		((size_t *)p)[-1] = pad;
	memset(p, 0, size);
	nalloc[RT(resource_type)]++;
	if (getenv("USTOCK_VERBOSE"))
		printf("     alloc %zu bytes (alignment %zu) for type %u: %p\n", size, alignment,
		       RT(resource_type), p);
	return p;
}

static void pd_free(struct ibv_pd *pd, void *pd_context, void *ptr, uint64_t resource_type)
{
	(void)pd;
	(void)resource_type;
	nfree++;
	if (pd_context)
		ptr = (char *)ptr - ((size_t *)ptr)[-1];
	free(ptr);
}

/*
 * UD loopback through the stock library: a UD QP (on @qpd) sends MSG bytes to itself or
 * to a second QP; the receive goes to an SRQ (on @srqpd) when @use_srq.  Returns NULL on
 * success, else what went wrong.
 */
static const char *ud_run(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_pd *qpd,
			  struct ibv_pd *srqpd, int use_srq, char *why, size_t whylen)
{
	struct ibv_qp_init_attr ia = {};
	struct ibv_srq_init_attr sa = {};
	struct ibv_qp_attr a = {};
	struct ibv_port_attr pa;
	struct ibv_ah_attr aha = {};
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = {}, *brw;
	struct ibv_send_wr swr = {}, *bsw;
	struct ibv_wc wc;
	const char *err = why;
	unsigned char *buf;
	int i, n, got_send = 0, got_recv = 0;

	buf = calloc(1, 2 * (MSG + GRH));
	if (!buf)
		return "no memory";
	if (ibv_query_port(ctx, 1, &pa)) {
		snprintf(why, whylen, "query_port: %s", strerror(errno));
		goto out;
	}
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		snprintf(why, whylen, "create_cq: %s", strerror(errno));
		goto out;
	}
	if (use_srq) {
		sa.attr.max_wr = 16;
		sa.attr.max_sge = 1;
		srq = ibv_create_srq(srqpd, &sa);
		if (!srq) {
			snprintf(why, whylen, "create_srq: %s", strerror(errno));
			goto out;
		}
	}
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.srq = srq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = use_srq ? 0 : 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = use_srq ? 0 : 1;
	qp = ibv_create_qp(qpd, &ia);
	if (!qp) {
		snprintf(why, whylen, "create_qp: %s", strerror(errno));
		goto out;
	}
	mr = ibv_reg_mr(pd, buf, 2 * (MSG + GRH), IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		snprintf(why, whylen, "reg_mr: %s", strerror(errno));
		goto out;
	}
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	a.qkey = QKEY;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) {
		snprintf(why, whylen, "INIT: %s", strerror(errno));
		goto out;
	}
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
		snprintf(why, whylen, "RTR: %s", strerror(errno));
		goto out;
	}
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		snprintf(why, whylen, "RTS: %s", strerror(errno));
		goto out;
	}
	aha.dlid = pa.lid;
	aha.port_num = 1;
	ah = ibv_create_ah(pd, &aha);
	if (!ah) {
		snprintf(why, whylen, "create_ah: %s", strerror(errno));
		goto out;
	}

	/* receive into the second half (GRH + MSG), send the first half's MSG bytes */
	sge.addr = (uintptr_t)buf + MSG + GRH;
	sge.length = MSG + GRH;
	sge.lkey = mr->lkey;
	rwr.wr_id = 2;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (use_srq ? ibv_post_srq_recv(srq, &rwr, &brw) : ibv_post_recv(qp, &rwr, &brw)) {
		snprintf(why, whylen, "post_recv: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < MSG; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	sge.addr = (uintptr_t)buf;
	sge.length = MSG;
	swr.wr_id = 1;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = QKEY;
	if (ibv_post_send(qp, &swr, &bsw)) {
		snprintf(why, whylen, "post_send: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 5000 && !(got_send && got_recv); i++) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0) {
			snprintf(why, whylen, "poll_cq: %d", n);
			goto out;
		}
		if (!n) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(why, whylen, "wr %llu: %s", (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			goto out;
		}
		if (wc.wr_id == 1)
			got_send = 1;
		else if (wc.wr_id == 2 && wc.byte_len == MSG + GRH)
			got_recv = 1;
		else {
			snprintf(why, whylen, "wr %llu: %u bytes", (unsigned long long)wc.wr_id,
				 wc.byte_len);
			goto out;
		}
	}
	if (!got_send || !got_recv) {
		snprintf(why, whylen, "no completion (send %d, recv %d)", got_send, got_recv);
		goto out;
	}
	if (memcmp(buf, buf + MSG + 2 * GRH, MSG)) {
		snprintf(why, whylen, "payload differs");
		goto out;
	}
	err = NULL;
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (qp && ibv_destroy_qp(qp) && !err)
		err = "destroy_qp";
	if (srq && ibv_destroy_srq(srq) && !err)
		err = "destroy_srq";
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	free(buf);
	return err;
}

static void case_plain(struct ibv_context *ctx, struct ibv_pd *pd, const char *name)
{
	char why[160] = "";
	const char *err;

	err = ud_run(ctx, pd, pd, pd, 1, why, sizeof(why));
	check(name, !err, "%s", err ? err : "UD send through an SRQ, 256 bytes compared");
}

static void case_pd_alloc(struct ibv_context *ctx, struct ibv_pd *pd, int mode)
{
	const char *pre = pd_mode_name[mode];
	struct ibv_parent_domain_init_attr pa = {};
	char why[160] = "", name[64];
	struct ibv_pd *ppd;
	const char *err;

#define NAME(n) (snprintf(name, sizeof(name), "%s-%s", pre, n), name)
	pa.pd = pd;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
		       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.alloc = pd_alloc;
	pa.free = pd_free;
	pa.pd_context = (void *)(uintptr_t)mode;
	ppd = ibv_alloc_parent_domain(ctx, &pa);
	check(NAME("parent_domain"), !!ppd, "%s", ppd ? "allocated" : strerror(errno));
	if (!ppd)
		return;
	memset(nalloc, 0, sizeof(nalloc));
	nfree = 0;
	err = ud_run(ctx, pd, ppd, ppd, 1, why, sizeof(why));
	check(NAME("qp_srq_traffic"), !err, "%s",
	      err ? err : "UD QP + SRQ of the parent domain, 256 bytes compared");
	check(NAME("allocator_used"),
	      nalloc[RT(MLX5DV_RES_TYPE_QP)] && nalloc[RT(MLX5DV_RES_TYPE_SRQ)] &&
	      nalloc[RT(MLX5DV_RES_TYPE_DBR)] >= 2 &&
	      nfree == nalloc[RT(MLX5DV_RES_TYPE_QP)] + nalloc[RT(MLX5DV_RES_TYPE_SRQ)] +
		       nalloc[RT(MLX5DV_RES_TYPE_DBR)],
	      "alloc: qp %u srq %u dbr %u, free %u", nalloc[RT(MLX5DV_RES_TYPE_QP)],
	      nalloc[RT(MLX5DV_RES_TYPE_SRQ)], nalloc[RT(MLX5DV_RES_TYPE_DBR)], nfree);
	/* an RQ of its own (no SRQ) from the allocator too */
	err = ud_run(ctx, pd, ppd, ppd, 0, why, sizeof(why));
	check(NAME("qp_rq_traffic"), !err, "%s",
	      err ? err : "UD QP with its own RQ, 256 bytes compared");
	/* the MR and the AH on the parent domain too */
	err = ud_run(ctx, ppd, ppd, ppd, 1, why, sizeof(why));
	check(NAME("all_on_parent"), !err, "%s",
	      err ? err : "QP, SRQ, MR, AH on the parent domain, 256 bytes compared");
	check(NAME("dealloc"), !ibv_dealloc_pd(ppd), "parent domain freed");
	case_plain(ctx, pd, NAME("after"));
#undef NAME
}

static void case_prefer_huge(struct ibv_context *ctx, struct ibv_pd *pd)
{
	static const char *const vars[] = {
		"MLX5_ALLOC_TYPE", "MLX_QP_ALLOC_TYPE", "MLX_SRQ_ALLOC_TYPE", "MLX_CQ_ALLOC_TYPE",
	};
	unsigned int i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		setenv(vars[i], "PREFER_HUGE", 1);
	case_plain(ctx, pd, "prefer_huge-srq_traffic");
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void case_devx_uar(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct mlx5dv_devx_uar *uar;
	int e;

	errno = 0;
	uar = mlx5dv_devx_alloc_uar(ctx, 0);
	e = errno;
	check("devx_uar-alloc", uar || e == EOPNOTSUPP, "%s",
	      uar ? "allocated" : strerror(e));
	if (uar)
		mlx5dv_devx_free_uar(uar);
	errno = 0;
	uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	e = errno;
	check("devx_uar-alloc_nc", uar || e == EOPNOTSUPP, "%s",
	      uar ? "allocated" : strerror(e));
	if (uar)
		mlx5dv_devx_free_uar(uar);
	case_plain(ctx, pd, "devx_uar-after");
}

/*
 * Touch @mib MiB, then give every other page back: each page freed has its buddy still in
 * use, so the kernel keeps them as single free pages and hands them out first.  Prints
 * "fragmented" and waits to be killed.
 */
static int fragment(const char *mib)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)strtoul(mib, NULL, 0) << 20, off;
	char *p;

	if (!len || pg <= 0)
		return 2;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("FAIL mmap %zu bytes: %s\n", len, strerror(errno));
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0x5a, len);
	for (off = 0; off < len; off += 2 * (size_t)pg)
		if (madvise(p + off, (size_t)pg, MADV_DONTNEED)) {
			printf("FAIL madvise: %s\n", strerror(errno));
			return 1;
		}
	printf("fragmented\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	int i, n;

	if (argc > 2 && !strcmp(argv[1], "--fragment"))
		return fragment(argv[2]);
	if (argc > 1)
		devname = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		printf("FAIL open %s: %s\n", devname, strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		printf("FAIL alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	case_plain(ctx, pd, "plain-srq_traffic");
	case_pd_alloc(ctx, pd, PD_ASKED);
	case_pd_alloc(ctx, pd, PD_EXACT);
	case_pd_alloc(ctx, pd, PD_LINE);
	case_prefer_huge(ctx, pd);
	case_devx_uar(ctx, pd);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("ustock: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
