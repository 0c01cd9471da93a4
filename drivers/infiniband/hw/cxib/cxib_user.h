/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cxib: what user space (the stock libmlx5) reaches: user contexts and their UAR pages
 * (ucontext.c), pinned user memory: queue buffers, doorbell pages and user MRs (umem.c),
 * and the user halves of create_cq / create_qp / create_srq, which read and answer
 * libmlx5's udata (uverbs.c).
 *
 * Prototypes inside #if IS_ENABLED(CONFIG_KUNIT) are of functions that only the KUnit
 * suites call from outside their file: VISIBLE_IF_KUNIT (<kunit/visibility.h>) makes them
 * static in a kernel without KUnit.
 */
#ifndef _CXIB_DRV_USER_H
#define _CXIB_DRV_USER_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <cxib/verbs.h>

#include "cxib_verbs.h"

struct cxib_caps;
struct cxib_dev;

/* ---- User contexts (ucontext.c) ------------------------------------------------------ */

/**
 * struct cxib_ucontext - a user context (libmlx5's)
 * @ibucontext: the RDMA core's context; first, as INIT_RDMA_OBJ_SIZE requires
 * @uars: indexes of the context's UAR pages, mapped by index
 * @nuars: number of UAR pages
 * @cqe_version: the CQE version agreed with libmlx5 (0, or 1: CQEs carry user indexes)
 * @db_lock: protects @db_pages
 * @db_pages: the pinned doorbell-record pages of the context's queues (struct cxib_udb_page)
 */
struct cxib_ucontext {
	struct ib_ucontext ibucontext;
	u32 *uars;
	unsigned int nuars;
	u8 cqe_version;
	struct mutex db_lock;		/* db_pages */
	struct list_head db_pages;
};

static inline struct cxib_ucontext *to_cxib_ucontext(struct ib_ucontext *ibuctx)
{
	return container_of(ibuctx, struct cxib_ucontext, ibucontext);
}

/* ucontext.c: user contexts */
int cxib_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata);
void cxib_dealloc_ucontext(struct ib_ucontext *ibuctx);
void cxib_disassociate_ucontext(struct ib_ucontext *ibuctx);
int cxib_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma);
void cxib_mmap_free(struct rdma_user_mmap_entry *entry);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_mmap_unknown_err(unsigned long pgoff);
#endif

/* ---- User queues and user memory (umem.c) -------------------------------------------- */

/* The user index of a QP when the context uses CQE version 0 (libmlx5 sends it then). */
#define CXIB_UIDX_NONE			0xffffff

/**
 * struct cxib_udb_page - a user page holding doorbell records, pinned for the device
 * @list: on cxib_ucontext.db_pages
 * @user_page: user virtual address of the page
 * @umem: the pinned page
 * @refcnt: queues of the context whose doorbell record lies in the page (under db_lock)
 *
 * libmlx5 packs the doorbell records of a context's queues into shared pages; each page is
 * pinned once, however many queues use it.
 */
struct cxib_udb_page {
	struct list_head list;
	unsigned long user_page;
	struct ib_umem *umem;
	unsigned int refcnt;
};

/**
 * struct cxib_uq - the user memory of a user CQ, QP or SRQ
 * @uctx: the user context the queue belongs to
 * @umem: the queue buffer, pinned
 * @pas: the create command's PAS list: bus addresses of the buffer's 4 KiB pages
 * @npas: number of entries in @pas
 * @db_page: the pinned page holding the queue's doorbell record
 * @db_dma: bus address of the doorbell record (the context's dbr_addr)
 * @uar: the firmware UAR whose doorbells the queue's owner rings
 * @uidx: the user index libmlx5 chose (CQE version 1), else CXIB_UIDX_NONE
 * @page_offset: where the buffer starts in its first page, in the context's page_offset
 *	units (64 bytes): libmlx5's buffers from a parent domain's allocator are only
 *	aligned to the queue's stride
 *
 * The queue object's buf.dma / buf.npages and dbr.dma are set to @pas / @npas and @db_dma,
 * so that the kernel-object code builds its commands unchanged; buf.bufs and dbr.db stay
 * NULL: the kernel never reads or writes a user queue's memory.  Freed with cxib_uq_free().
 */
struct cxib_uq {
	struct cxib_ucontext *uctx;
	struct ib_umem *umem;
	dma_addr_t *pas;
	u32 npas;
	struct cxib_udb_page *db_page;
	dma_addr_t db_dma;
	u32 uar;
	u32 uidx;
	u8 page_offset;
};

/**
 * struct cxib_uq_req - where libmlx5 put a user queue, from its create request
 * @buf_addr: user virtual address of the queue buffer
 * @db_addr: user virtual address of the doorbell record
 * @uidx: the user index (CQE version 1), else CXIB_UIDX_NONE
 */
struct cxib_uq_req {
	u64 buf_addr;
	u64 db_addr;
	u32 uidx;
};

/* umem.c: user memory (user MRs, user queue buffers, doorbell pages) */
struct ib_mr *cxib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 virt_addr,
			       int access, struct ib_udata *udata);
struct cxib_uq *cxib_uq_create(struct cxib_dev *dev, struct cxib_ucontext *uctx,
			       const struct cxib_uq_req *req, size_t size,
			       struct cxib_frag_buf *buf, struct cxib_dbr *dbr);
void cxib_uq_free(struct cxib_dev *dev, struct cxib_uq *uq);
int cxib_uq_buf_offset(u64 buf_addr, u32 stride, u8 *page_offset);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_mkey_create_mtt(struct cxib_dev *dev, struct cxib_mkc *mkc, u64 *mtt, size_t nmtt,
			 u32 *mkey_index);
u32 cxib_umem_fill_pas(struct ib_umem *umem, unsigned long pgsz, u64 *pas, u32 max);
#endif

/* ---- The user halves of creating queues (uverbs.c) ----------------------------------- */

/* uverbs.c: the user halves of create_cq / create_qp / create_srq (libmlx5's udata) */
struct mlx5_ib_create_cq;
struct mlx5_ib_create_qp;
struct mlx5_ib_create_srq;
int cxib_ucq_init(struct cxib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata, u8 *cqe_sz);
int cxib_ucq_respond(struct cxib_cq *cq, struct ib_udata *udata);
int cxib_uqp_init(struct cxib_qp *qp, struct ib_qp_init_attr *attr, struct ib_udata *udata);
void cxib_uqp_fill_qpc(const struct cxib_qp *qp, struct cxib_qpc *qpc);
int cxib_uqp_respond(struct cxib_qp *qp, struct ib_udata *udata);
int cxib_usrq_get(struct ib_udata *udata, struct cxib_uq_req *req);
int cxib_usrq_respond(struct cxib_srq *srq, struct ib_udata *udata);
#if IS_ENABLED(CONFIG_KUNIT)
int cxib_uidx_check(u8 cqe_version, u32 uidx, u32 *out);
int cxib_ucq_check(const struct cxib_caps *caps, const struct mlx5_ib_create_cq *ucmd,
		   u32 cqe, u8 *cqe_sz, u8 *log_size, size_t *bytes);
int cxib_uqp_check(const struct cxib_caps *caps, const struct mlx5_ib_create_qp *ucmd,
		   const struct ib_qp_init_attr *attr, size_t *bytes);
int cxib_usrq_check(const struct mlx5_ib_create_srq *ucmd);
#endif

#endif /* _CXIB_DRV_USER_H */
