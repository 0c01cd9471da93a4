// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw protection domains and memory keys (PRM section 5.1, 5.2): ALLOC_PD / DEALLOC_PD,
 * ALLOC_XRCD / DEALLOC_XRCD (numbers 1 .. 255, recorded only),
 * CREATE_MKEY / QUERY_MKEY / DESTROY_MKEY, and the translation the send and receive
 * engines use to turn (key, PD, access, address, length) into guest memory.
 *
 * PD numbers run 1 .. CXFW_MAX_PDS - 1 (lowest free first); a PD used by an mkey cannot be
 * deallocated (RES_BUSY).  Mkey indexes run CXFW_FIRST_MKEY .. CXFW_MAX_MKEYS - 1 (index 1
 * is never used: with variant 0 it would be lkey 0x100, the receive terminator).  The key
 * verbs see is index << 8 | mkc.mkey_7_0; a key is matched on both.
 *
 * Modes: PA (identity; length64 = the whole address space) and MTT (8-byte page addresses,
 * page size 2^mkc.log_page_size, entry i maps [start & ~(page-1)) + i * page ...).  Keys
 * created free (umr_en) are known but unusable until a UMR WQE enables them: the send
 * engine parses the WQE (fast registration, LOCAL_INV) and cxfw_mkey_umr() applies it;
 * cxfw_mkey_invalidate() serves LOCAL_INV and SEND_WITH_INVALIDATE.
 */
#include <stdlib.h>
#include <string.h>

#include "cxfw_priv.h"

/* ---- PD -------------------------------------------------------------------------------- */

bool cxfw_pd_valid(const struct cxfw_dev *dev, uint32_t pd)
{
	return dev->pd_refs && pd && pd < CXFW_MAX_PDS && dev->pd_refs[pd];
}

uint8_t cxfw_cmd_alloc_pd(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_alloc_pd_out *out = (void *)cmd->out;
	uint32_t pd;

	pthread_mutex_lock(&dev->lock);
	if (!dev->pd_refs)
		dev->pd_refs = calloc(CXFW_MAX_PDS, sizeof(*dev->pd_refs));
	if (!dev->pd_refs) {
		pthread_mutex_unlock(&dev->lock);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	for (pd = 1; pd < CXFW_MAX_PDS && dev->pd_refs[pd]; pd++)
		;
	if (pd < CXFW_MAX_PDS)
		dev->pd_refs[pd] = 1;
	pthread_mutex_unlock(&dev->lock);
	if (pd == CXFW_MAX_PDS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	CXIB_SET(out, CXIB_ALLOC_PD_OUT_PD, pd);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_dealloc_pd(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_dealloc_pd_in *in = (const void *)cmd->in;
	uint32_t pd = CXIB_GET(in, CXIB_DEALLOC_PD_IN_PD);
	uint8_t st = CXIB_CMD_STAT_OK;

	if (!pd || pd >= CXFW_MAX_PDS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, pd));
	pthread_mutex_lock(&dev->lock);
	if (!cxfw_pd_valid(dev, pd))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, pd));
	else if (dev->pd_refs[pd] > 1)
		st = cxfw_fail(cmd, CXIB_CMD_STAT_RES_BUSY, CXFW_SYND(CXFW_SYND_RES_BUSY, pd));
	else
		dev->pd_refs[pd] = 0;
	pthread_mutex_unlock(&dev->lock);
	return st;
}

/* ---- XRCD (recorded only: XRC SRQs and XRC QPs are not modelled yet) ---------------- */

uint8_t cxfw_cmd_alloc_xrcd(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_alloc_xrcd_out *out = (void *)cmd->out;
	uint32_t x;

	pthread_mutex_lock(&dev->lock);
	for (x = 1; x < CXFW_MAX_XRCDS && (dev->xrcd_map[x / 64] >> (x % 64) & 1); x++)
		;
	if (x < CXFW_MAX_XRCDS)
		dev->xrcd_map[x / 64] |= 1ull << (x % 64);
	pthread_mutex_unlock(&dev->lock);
	if (x == CXFW_MAX_XRCDS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	CXIB_SET(out, CXIB_ALLOC_XRCD_OUT_XRCD, x);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_dealloc_xrcd(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_dealloc_xrcd_in *in = (const void *)cmd->in;
	uint32_t x = CXIB_GET(in, CXIB_DEALLOC_XRCD_IN_XRCD);
	uint8_t st = CXIB_CMD_STAT_OK;

	if (!x || x >= CXFW_MAX_XRCDS)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, x));
	pthread_mutex_lock(&dev->lock);
	if (!(dev->xrcd_map[x / 64] >> (x % 64) & 1))
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, x));
	else
		dev->xrcd_map[x / 64] &= ~(1ull << (x % 64));
	pthread_mutex_unlock(&dev->lock);
	return st;
}

/* ---- MKEY ------------------------------------------------------------------------------ */

static void cxfw_mkey_free(struct cxfw_mkey *mk)
{
	if (mk)
		free(mk->mtt);
	free(mk);
}

void cxfw_mr_destroy_all(struct cxfw_dev *dev)
{
	unsigned int i;

	if (dev->mkeys)
		for (i = 0; i < CXFW_MAX_MKEYS; i++)
			cxfw_mkey_free(dev->mkeys[i]);
	free(dev->mkeys);
	dev->mkeys = NULL;
	dev->mtt_total = 0;
	free(dev->pd_refs);
	dev->pd_refs = NULL;
	memset(dev->xrcd_map, 0, sizeof(dev->xrcd_map));
}

static unsigned int cxfw_mkc_access(const __be32 *mkc)
{
	return (CXIB_GET(mkc, CXIB_MKC_LR) ? CXFW_ACCESS_LOCAL_READ : 0) |
	       (CXIB_GET(mkc, CXIB_MKC_LW) ? CXFW_ACCESS_LOCAL_WRITE : 0) |
	       (CXIB_GET(mkc, CXIB_MKC_RR) ? CXFW_ACCESS_REMOTE_READ : 0) |
	       (CXIB_GET(mkc, CXIB_MKC_RW) ? CXFW_ACCESS_REMOTE_WRITE : 0) |
	       (CXIB_GET(mkc, CXIB_MKC_A) ? CXFW_ACCESS_REMOTE_ATOMIC : 0);
}

/* MTT entries a key of @len bytes from @start needs with pages of 2^@log_pg. */
static uint64_t cxfw_mtt_needed(uint64_t start, uint64_t len, unsigned int log_pg)
{
	uint64_t first = start >> log_pg;

	if (!len)
		return 0;
	return ((start + len - 1) >> log_pg) - first + 1;
}

uint8_t cxfw_cmd_create_mkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_create_mkey_in *in = (const void *)cmd->in;
	struct cxib_create_mkey_out *out = (void *)cmd->out;
	const __be32 *mkc = (const __be32 *)cxfw_in_bytes(cmd, CXIB_CREATE_MKEY_IN_MKC_OFFSET);
	const uint8_t *xlt = cxfw_in_bytes(cmd, CXIB_CREATE_MKEY_IN_KLM_PAS_MTT_OFFSET);
	uint32_t mode = CXIB_GET(mkc, CXIB_MKC_ACCESS_MODE_4_2) << 2 |
			CXIB_GET(mkc, CXIB_MKC_ACCESS_MODE_1_0);
	uint32_t pd = CXIB_GET(mkc, CXIB_MKC_PD);
	uint32_t qpn = CXIB_GET(mkc, CXIB_MKC_QPN);
	uint32_t octwords = CXIB_GET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE);
	uint32_t actual = CXIB_GET(in, CXIB_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE);
	uint32_t log_pg = CXIB_GET(mkc, CXIB_MKC_LOG_PAGE_SIZE);
	uint64_t start = CXIB_GET64(mkc, CXIB_MKC_START_ADDR);
	uint64_t len = CXIB_GET64(mkc, CXIB_MKC_LEN);
	bool free_key = CXIB_GET(mkc, CXIB_MKC_FREE), len64 = CXIB_GET(mkc, CXIB_MKC_LENGTH64);
	struct cxfw_mkey *mk;
	uint32_t idx, i;

	if (CXIB_GET(in, CXIB_CREATE_MKEY_IN_PG_ACCESS) ||
	    CXIB_GET(in, CXIB_CREATE_MKEY_IN_MKEY_UMEM_VALID))	/* no ODP, no DEVX */
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 3));
	if (mode != CXIB_MKC_ACCESS_MODE_PA && mode != CXIB_MKC_ACCESS_MODE_MTT)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, mode));
	if (qpn != CXIB_MKC_QPN_NONE)		/* keys bound to a QP: not modelled */
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, qpn));
	if (!len64 && start + len < start)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 0));
	if (actual > octwords)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, actual));
	if (mode == CXIB_MKC_ACCESS_MODE_PA) {
		if (octwords)
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, octwords));
	} else {
		if (len64)
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, 1));
		if (log_pg < CXIB_ADAPTER_PAGE_SHIFT || log_pg > CXFW_MKEY_MAX_LOG_PAGE)
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, log_pg));
		if (octwords > CXFW_MAX_MTT_OCTWORDS)
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, octwords));
		if (cmd->inlen < CXIB_CREATE_MKEY_IN_LEN((uint64_t)actual * CXIB_MTT_PER_OCTWORD))
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INPUT_LEN,
					 CXFW_SYND(CXFW_SYND_BAD_INLEN, cmd->inlen));
		/* a usable key must come with all of its translation */
		if (!free_key && cxfw_mtt_needed(start, len, log_pg) >
				 (uint64_t)actual * CXIB_MTT_PER_OCTWORD)
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, actual));
	}

	mk = calloc(1, sizeof(*mk));
	if (!mk)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	/* only the entries supplied are kept (UMR, later, will grow the array up to octwords) */
	if (actual) {
		mk->mtt = calloc((size_t)actual * CXIB_MTT_PER_OCTWORD, sizeof(*mk->mtt));
		if (!mk->mtt) {
			free(mk);
			return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES,
					 CXFW_SYND(CXFW_SYND_NO_RES, 0));
		}
	}
	mk->nmtt = actual * CXIB_MTT_PER_OCTWORD;
	for (i = 0; i < mk->nmtt; i++) {
		mk->mtt[i] = CXIB_GET64(xlt + (size_t)i * CXIB_MTT_ENTRY_SIZE,
					CXIB_MTT_ENTRY_PTAG) &
			     ~CXIB_MTT_ENABLES;	/* no paging: ignored */
		if (mk->mtt[i] & ((1ull << log_pg) - 1)) {
			cxfw_log(dev, CXFW_LOG_ERR, "cxfw: CREATE_MKEY: MTT entry %u 0x%llx unaligned",
				 i, (unsigned long long)mk->mtt[i]);
			cxfw_mkey_free(mk);
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PAGE, i));
		}
	}
	mk->pd = pd;
	mk->variant = (uint8_t)CXIB_GET(mkc, CXIB_MKC_MKEY_7_0);
	mk->access_mode = (uint8_t)mode;
	mk->access = (uint8_t)cxfw_mkc_access(mkc);
	mk->log_page_size = (uint8_t)log_pg;
	mk->free = free_key;
	mk->umr_en = CXIB_GET(mkc, CXIB_MKC_UMR_EN);
	mk->length64 = len64;
	mk->en_rinval = CXIB_GET(mkc, CXIB_MKC_EN_RINVAL);
	mk->qpn = qpn;
	mk->start = start;
	mk->len = len;
	mk->octwords = octwords;

	pthread_mutex_lock(&dev->lock);
	if (!cxfw_pd_valid(dev, pd)) {
		pthread_mutex_unlock(&dev->lock);
		cxfw_mkey_free(mk);
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, pd));
	}
	if (dev->mtt_total + mk->nmtt > CXFW_MAX_MTT_TOTAL) {	/* bound the host memory */
		pthread_mutex_unlock(&dev->lock);
		cxfw_mkey_free(mk);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 1));
	}
	dev->mtt_total += mk->nmtt;
	if (!dev->mkeys)
		dev->mkeys = calloc(CXFW_MAX_MKEYS, sizeof(*dev->mkeys));
	idx = CXFW_MAX_MKEYS;
	if (dev->mkeys)
		for (idx = CXFW_FIRST_MKEY; idx < CXFW_MAX_MKEYS && dev->mkeys[idx]; idx++)
			;
	if (idx == CXFW_MAX_MKEYS) {
		pthread_mutex_unlock(&dev->lock);
		cxfw_mkey_free(mk);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	}
	dev->mkeys[idx] = mk;
	dev->pd_refs[pd]++;
	pthread_mutex_unlock(&dev->lock);

	CXIB_SET(out, CXIB_CREATE_MKEY_OUT_MKEY_INDEX, idx);
	return CXIB_CMD_STAT_OK;
}

/* The mkey a QUERY/DESTROY_MKEY names; lock held on success. */
static struct cxfw_mkey *cxfw_mkey_get(struct cxfw_dev *dev, struct cxfw_cmd *cmd,
				       uint32_t idx, uint8_t *st)
{
	if (idx < CXFW_FIRST_MKEY || idx >= CXFW_MAX_MKEYS) {
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, idx));
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	if (!dev->mkeys || !dev->mkeys[idx]) {
		pthread_mutex_unlock(&dev->lock);
		*st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, idx));
		return NULL;
	}
	return dev->mkeys[idx];
}

uint8_t cxfw_cmd_query_mkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_mkey_in *in = (const void *)cmd->in;
	__be32 *mkc = (__be32 *)cxfw_out_bytes(cmd, CXIB_QUERY_MKEY_OUT_MKC_OFFSET);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_mkey *mk;

	mk = cxfw_mkey_get(dev, cmd, CXIB_GET(in, CXIB_QUERY_MKEY_IN_MKEY_INDEX), &st);
	if (!mk)
		return st;
	CXIB_SET(mkc, CXIB_MKC_FREE, mk->free);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_4_2, mk->access_mode >> 2);
	CXIB_SET(mkc, CXIB_MKC_ACCESS_MODE_1_0, mk->access_mode & 3);
	CXIB_SET(mkc, CXIB_MKC_UMR_EN, mk->umr_en);
	CXIB_SET(mkc, CXIB_MKC_A, !!(mk->access & CXFW_ACCESS_REMOTE_ATOMIC));
	CXIB_SET(mkc, CXIB_MKC_RW, !!(mk->access & CXFW_ACCESS_REMOTE_WRITE));
	CXIB_SET(mkc, CXIB_MKC_RR, !!(mk->access & CXFW_ACCESS_REMOTE_READ));
	CXIB_SET(mkc, CXIB_MKC_LW, !!(mk->access & CXFW_ACCESS_LOCAL_WRITE));
	CXIB_SET(mkc, CXIB_MKC_LR, !!(mk->access & CXFW_ACCESS_LOCAL_READ));
	CXIB_SET(mkc, CXIB_MKC_QPN, mk->qpn);
	CXIB_SET(mkc, CXIB_MKC_MKEY_7_0, mk->variant);
	CXIB_SET(mkc, CXIB_MKC_LENGTH64, mk->length64);
	CXIB_SET(mkc, CXIB_MKC_EN_RINVAL, mk->en_rinval);
	CXIB_SET(mkc, CXIB_MKC_PD, mk->pd);
	CXIB_SET64(mkc, CXIB_MKC_START_ADDR, mk->start);
	CXIB_SET64(mkc, CXIB_MKC_LEN, mk->len);
	CXIB_SET(mkc, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE, mk->octwords);
	CXIB_SET(mkc, CXIB_MKC_LOG_PAGE_SIZE, mk->log_page_size);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_destroy_mkey(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_destroy_mkey_in *in = (const void *)cmd->in;
	uint32_t idx = CXIB_GET(in, CXIB_DESTROY_MKEY_IN_MKEY_INDEX);
	uint8_t st = CXIB_CMD_STAT_OK;
	struct cxfw_mkey *mk;

	mk = cxfw_mkey_get(dev, cmd, idx, &st);
	if (!mk)
		return st;
	dev->mkeys[idx] = NULL;
	dev->mtt_total -= mk->nmtt;
	if (dev->pd_refs && dev->pd_refs[mk->pd] > 1)
		dev->pd_refs[mk->pd]--;
	pthread_mutex_unlock(&dev->lock);
	cxfw_mkey_free(mk);
	return CXIB_CMD_STAT_OK;
}

/*
 * Translate [va, va + len) of key @key for a QP in @pd asking for @access (CXFW_ACCESS_*)
 * into at most @max_sg pieces of guest memory (adjacent pages are merged).  Returns 0, or
 * the CQE syndrome of the failed check: REMOTE_ACCESS_ERR if @access asks for a remote
 * right, else LOCAL_PROT_ERR (unknown index, variant mismatch, free key, other PD,
 * missing right, range outside the key or its translation); LOCAL_LENGTH_ERR if more than
 * @max_sg pieces would be needed.  With @sg NULL only the checks run (any number of pieces).
 * Takes the lock.
 */
uint8_t cxfw_mkey_translate(struct cxfw_dev *dev, uint32_t key, uint32_t pd,
			    unsigned int access, uint64_t va, uint64_t len,
			    struct cxfw_sg *sg, unsigned int max_sg, unsigned int *nsg)
{
	uint8_t bad = (access & CXFW_ACCESS_REMOTE) ? CXIB_CQE_SYND_REMOTE_ACCESS_ERR :
						      CXIB_CQE_SYND_LOCAL_PROT_ERR;
	uint32_t idx = CXIB_MKEY_INDEX(key);
	const struct cxfw_mkey *mk;
	uint8_t st = 0;
	unsigned int n = 0;

	*nsg = 0;
	pthread_mutex_lock(&dev->lock);
	mk = dev->mkeys && idx >= CXFW_FIRST_MKEY && idx < CXFW_MAX_MKEYS ? dev->mkeys[idx] :
									      NULL;
	if (!mk || mk->variant != CXIB_MKEY_VARIANT(key) || mk->free ||
	    (pd != CXFW_PD_ANY && mk->pd != pd) || (access & ~(unsigned int)mk->access)) {
		st = bad;
		goto out;
	}
	if (!len)
		goto out;
	if (va + len < va ||
	    (!mk->length64 && (va < mk->start || va + len > mk->start + mk->len))) {
		st = bad;
		goto out;
	}
	if (mk->access_mode == CXIB_MKC_ACCESS_MODE_PA) {
		if (!sg)
			goto out;
		if (!max_sg || len > UINT32_MAX) {
			st = CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
			goto out;
		}
		sg[0].addr = va;
		sg[0].len = (uint32_t)len;
		n = 1;
		goto out;
	}
	{
		uint64_t pg = 1ull << mk->log_page_size;
		uint64_t off = va - (mk->start & ~(pg - 1));

		while (len) {
			uint64_t i = off >> mk->log_page_size, in_pg = off & (pg - 1);
			uint64_t chunk = pg - in_pg < len ? pg - in_pg : len;
			uint64_t addr;

			if (i >= mk->nmtt) {
				st = bad;
				goto out;
			}
			addr = mk->mtt[i] + in_pg;
			if (!sg) {
				/* check only: jump to the last page the range touches */
				uint64_t last = (off + len - 1) >> mk->log_page_size;

				if (last >= mk->nmtt) {
					st = bad;
					goto out;
				}
				break;
			} else if (n && sg[n - 1].addr + sg[n - 1].len == addr &&
			    sg[n - 1].len + chunk <= UINT32_MAX) {
				sg[n - 1].len += (uint32_t)chunk;
			} else {
				if (n == max_sg) {
					st = CXIB_CQE_SYND_LOCAL_LENGTH_ERR;
					goto out;
				}
				sg[n].addr = addr;
				sg[n].len = (uint32_t)chunk;
				n++;
			}
			off += chunk;
			len -= chunk;
		}
	}
out:
	pthread_mutex_unlock(&dev->lock);
	if (!st)
		*nsg = n;
	return st;
}

/*
 * LOCAL_INV / SEND_WITH_INVALIDATE (IBA 10.6.5): the key must exist (index and variant),
 * belong to @pd and be valid (not free); a remote invalidation also needs mkc.en_rinval
 * (ConnectX gates invalidation on that bit, not on umr_en).  Success leaves the key free;
 * a key with umr_en can be registered again by a UMR WQE.
 */
uint8_t cxfw_mkey_invalidate(struct cxfw_dev *dev, uint32_t key, uint32_t pd, bool remote)
{
	uint8_t bad = remote ? CXIB_CQE_SYND_REMOTE_INVAL_REQ_ERR : CXIB_CQE_SYND_LOCAL_PROT_ERR;
	uint32_t idx = CXIB_MKEY_INDEX(key);
	struct cxfw_mkey *mk;
	uint8_t st = 0;

	pthread_mutex_lock(&dev->lock);
	mk = dev->mkeys && idx >= CXFW_FIRST_MKEY && idx < CXFW_MAX_MKEYS ? dev->mkeys[idx] :
									      NULL;
	if (!mk || mk->variant != CXIB_MKEY_VARIANT(key) || mk->pd != pd || mk->free ||
	    (remote && !mk->en_rinval))
		st = bad;
	else
		mk->free = true;
	pthread_mutex_unlock(&dev->lock);
	return st;
}

/*
 * Apply a UMR WQE (fast registration, LOCAL_INV in its UMR form, enable/disable) to the key
 * @u->key names, for a QP of PD @pd (0: the privileged UMR QP, any PD; it may also move
 * the key to another PD).  The key must exist, be umr_en and in @pd; with
 * CXIB_UMR_CHECK_NOT_FREE it must be free, with CXIB_UMR_CHECK_FREE it must not.  Without
 * CXIB_UMR_MKEY_MASK_KEY the variant must match too.  Translation entries (@u->xlt_offset
 * counts entries) land at [xlt_offset, xlt_offset + nxlt) within the key's
 * translations_octword_size; a key left valid must be fully translated.  Returns 0 or the
 * CQE syndrome (LOCAL_PROT_ERR for key/PD/state, LOCAL_QP_OP_ERR for a malformed request).
 */
uint8_t cxfw_mkey_umr(struct cxfw_dev *dev, uint32_t pd, const struct cxfw_umr *u)
{
	uint32_t idx = CXIB_MKEY_INDEX(u->key);
	uint64_t m = u->mask, cap, need, start, len, nxlt;
	unsigned int access, log_pg;
	struct cxfw_mkey *mk;
	uint64_t *mtt = NULL;
	bool free_key, len64;
	uint8_t st = 0;

	pthread_mutex_lock(&dev->lock);
	mk = dev->mkeys && idx >= CXFW_FIRST_MKEY && idx < CXFW_MAX_MKEYS ? dev->mkeys[idx] :
									      NULL;
	if (!mk || !mk->umr_en || (pd && mk->pd != pd) ||
	    (!(m & CXIB_UMR_MKEY_MASK_KEY) && mk->variant != CXIB_MKEY_VARIANT(u->key)) ||
	    ((u->flags & CXIB_UMR_CHECK_FREE) && mk->free) ||
	    ((u->flags & CXIB_UMR_CHECK_NOT_FREE) && !mk->free)) {
		st = CXIB_CQE_SYND_LOCAL_PROT_ERR;
		goto out;
	}
	cap = (uint64_t)mk->octwords * CXIB_MTT_PER_OCTWORD;
	/* the driver pads the list to 64 bytes: entries beyond the capacity are dropped */
	nxlt = u->xlt_offset >= cap ? 0 : u->nxlt;
	if (nxlt > cap - u->xlt_offset)
		nxlt = cap - u->xlt_offset;
	if ((u->nxlt && mk->access_mode != CXIB_MKC_ACCESS_MODE_MTT) ||
	    (u->nxlt && !nxlt) ||
	    ((m & CXIB_UMR_MKEY_MASK_PD) && !cxfw_pd_valid(dev, u->pd)) ||
	    ((m & CXIB_UMR_MKEY_MASK_QPN) && u->qpn != CXIB_MKC_QPN_NONE)) {
		st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		goto out;
	}
	/* the would-be key */
	start = (m & CXIB_UMR_MKEY_MASK_START_ADDR) ? u->start : mk->start;
	len = (m & CXIB_UMR_MKEY_MASK_LEN) ? u->len : mk->len;
	len64 = (m & CXIB_UMR_MKEY_MASK_LEN) ? u->length64 : mk->length64;
	log_pg = (m & CXIB_UMR_MKEY_MASK_PAGE_SIZE) ? u->log_page_size : mk->log_page_size;
	free_key = (m & CXIB_UMR_MKEY_MASK_FREE) ? u->free : mk->free;
	access = mk->access;
	if (m & CXIB_UMR_MKEY_MASK_LR)
		access = (access & ~CXFW_ACCESS_LOCAL_READ) |
			 (u->access & CXFW_ACCESS_LOCAL_READ);
	if (m & CXIB_UMR_MKEY_MASK_LW)
		access = (access & ~CXFW_ACCESS_LOCAL_WRITE) |
			 (u->access & CXFW_ACCESS_LOCAL_WRITE);
	if (m & CXIB_UMR_MKEY_MASK_RR)
		access = (access & ~CXFW_ACCESS_REMOTE_READ) |
			 (u->access & CXFW_ACCESS_REMOTE_READ);
	if (m & CXIB_UMR_MKEY_MASK_RW)
		access = (access & ~CXFW_ACCESS_REMOTE_WRITE) |
			 (u->access & CXFW_ACCESS_REMOTE_WRITE);
	if (m & CXIB_UMR_MKEY_MASK_A)
		access = (access & ~CXFW_ACCESS_REMOTE_ATOMIC) |
			 (u->access & CXFW_ACCESS_REMOTE_ATOMIC);
	if (mk->access_mode == CXIB_MKC_ACCESS_MODE_MTT &&
	    (len64 || log_pg < CXIB_ADAPTER_PAGE_SHIFT || log_pg > CXFW_MKEY_MAX_LOG_PAGE)) {
		st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		goto out;
	}
	if (!len64 && start + len < start) {
		st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		goto out;
	}
	if (nxlt) {
		uint64_t i;

		for (i = 0; i < nxlt; i++)
			if (u->xlt[i] & ~CXIB_MTT_ENABLES & ((1ull << log_pg) - 1)) {
				st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
				goto out;
			}
		if (mk->nmtt < cap) {		/* grow to the full capacity once */
			if (dev->mtt_total - mk->nmtt + cap > CXFW_MAX_MTT_TOTAL) {
				st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
				goto out;
			}
			mtt = calloc((size_t)cap, sizeof(*mtt));
			if (!mtt) {
				st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
				goto out;
			}
			if (mk->nmtt)
				memcpy(mtt, mk->mtt, (size_t)mk->nmtt * sizeof(*mtt));
			free(mk->mtt);
			mk->mtt = mtt;
			dev->mtt_total += cap - mk->nmtt;
			mk->nmtt = (uint32_t)cap;
		}
		for (i = 0; i < nxlt; i++)	/* without paging the enables are ignored */
			mk->mtt[u->xlt_offset + i] = u->xlt[i] & ~CXIB_MTT_ENABLES;
	}
	need = mk->access_mode == CXIB_MKC_ACCESS_MODE_MTT ?
	       cxfw_mtt_needed(start, len, log_pg) : 0;
	if (!free_key && need > mk->nmtt) {
		st = CXIB_CQE_SYND_LOCAL_QP_OP_ERR;
		goto out;
	}
	mk->start = start;
	mk->len = len;
	mk->length64 = len64;
	mk->log_page_size = (uint8_t)log_pg;
	mk->access = (uint8_t)access;
	mk->free = free_key;
	if (m & CXIB_UMR_MKEY_MASK_KEY)
		mk->variant = (uint8_t)CXIB_MKEY_VARIANT(u->key);
	if (m & CXIB_UMR_MKEY_MASK_EN_RINVAL)
		mk->en_rinval = u->en_rinval;
	if ((m & CXIB_UMR_MKEY_MASK_PD) && u->pd != mk->pd) {
		dev->pd_refs[mk->pd]--;
		dev->pd_refs[u->pd]++;
		mk->pd = u->pd;
	}
out:
	pthread_mutex_unlock(&dev->lock);
	return st;
}
