// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw packet CRCs (see crc.h): the ICRC (CRC-32) and the VCRC (CRC-16) of IBTA vol 1
 * ch. 7, for wire.c's packet builder and parser.
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <cxib/ibwire.h>

#include "crc.h"

#define CXFW_CRC32_POLY		CXIB_ICRC_POLY_REFLECTED
#define CXFW_CRC16_POLY		CXIB_VCRC_POLY_REFLECTED
#define CXFW_CRC_TABLE		256
#define CXFW_CRC32_INIT		0xffffffffu	/* both CRCs start all ones, end inverted */
#define CXFW_CRC16_INIT		0xffffu
#define CXFW_ICRC_VARIANT	0xff		/* variant bytes count as all ones (1.8) */

/*
 * Both CRCs are reflected and table driven, "slicing by 16": table[0] advances the register
 * over one byte, table[k] over one byte followed by k zero bytes, so sixteen bytes are
 * folded in with sixteen independent lookups instead of sixteen dependent ones.  Where the
 * CPU has a carry-less multiply (x86-64 PCLMULQDQ, detected at run time), long buffers are
 * first folded 64 bytes at a time (below).  The result is the bit-serial CRC's, byte for
 * byte: the test vectors in test_wire.c hold the short path to that, and bench_model
 * (firmware/bench) checks both paths against a bit-serial CRC over every length up to a
 * full packet before it measures anything.
 */
#define CXFW_CRC_SLICES		16

static uint32_t cxfw_crc32_table[CXFW_CRC_SLICES][CXFW_CRC_TABLE];
static uint16_t cxfw_crc16_table[CXFW_CRC_SLICES][CXFW_CRC_TABLE];
static pthread_once_t cxfw_crc_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) && defined(__GNUC__)
#define CXFW_CRC_CLMUL		1
#include <immintrin.h>
#else
#define CXFW_CRC_CLMUL		0
#endif

/*
 * Folding (carry-less multiply): as polynomials over GF(2), the CRC of a buffer depends only
 * on its value modulo the generator P, so a leading 16-byte block V followed by D more bytes
 * can be replaced, D bytes further on, by V * x^(8D) mod P XORed into the block found there.
 * In the reflected order a 16-byte block loaded little endian holds the high-degree half L
 * in its low 64 bits and the low half H in its high 64 bits (V = L x^64 + H), and a 64x64
 * carry-less product of two reflected operands comes out one degree short; hence the
 * constants k_lo = x^(8D+63) mod P (for L) and k_hi = x^(8D-1) mod P (for H), each stored
 * reflected in 64 bits.  Products have degree < 96, so the folded block still fits in 16
 * bytes.  Four blocks are folded in parallel over 64-byte strides, merged 16 bytes at a
 * time, and the last block and the tail go through the tables from a zero register (the
 * incoming register was XORed into the first bytes, which is what starting from it means).
 */
#define CXFW_CRC_FOLD_BLOCK	16
#define CXFW_CRC_FOLD_LANES	4
#define CXFW_CRC_FOLD_STRIDE	(CXFW_CRC_FOLD_BLOCK * CXFW_CRC_FOLD_LANES)
#define CXFW_CRC_FOLD_MIN	(2 * CXFW_CRC_FOLD_STRIDE)	/* shorter: tables only */
#define CXFW_CRC32_WIDTH	32
#define CXFW_CRC16_WIDTH	16

#if CXFW_CRC_CLMUL
struct cxfw_crc_fold {
	uint64_t stride_lo, stride_hi;	/* fold over CXFW_CRC_FOLD_STRIDE bytes */
	uint64_t block_lo, block_hi;	/* fold over CXFW_CRC_FOLD_BLOCK bytes */
};

static struct cxfw_crc_fold cxfw_crc32_fold, cxfw_crc16_fold;
static bool cxfw_crc_clmul;

/* The @width-bit generator in normal bit order, from its reflected form @refl. */
static uint32_t cxfw_crc_normal(uint32_t refl, unsigned int width)
{
	uint32_t p = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		if (refl >> i & 1)
			p |= 1u << (width - 1 - i);
	return p;
}

/* x^@n mod P (degree @width, low terms @p), reflected into 64 bits: coefficient d at 63-d. */
static uint64_t cxfw_crc_xpow(unsigned int n, uint32_t p, unsigned int width)
{
	uint64_t r = 1, top = 1ull << width, k = 0;
	unsigned int d;

	while (n--) {
		r <<= 1;
		if (r & top)
			r ^= top | p;
	}
	for (d = 0; d < width; d++)
		if (r >> d & 1)
			k |= 1ull << (63 - d);
	return k;
}

static void cxfw_crc_fold_init(struct cxfw_crc_fold *f, uint32_t refl, unsigned int width)
{
	uint32_t p = cxfw_crc_normal(refl, width);

	f->stride_lo = cxfw_crc_xpow(8 * CXFW_CRC_FOLD_STRIDE + 63, p, width);
	f->stride_hi = cxfw_crc_xpow(8 * CXFW_CRC_FOLD_STRIDE - 1, p, width);
	f->block_lo = cxfw_crc_xpow(8 * CXFW_CRC_FOLD_BLOCK + 63, p, width);
	f->block_hi = cxfw_crc_xpow(8 * CXFW_CRC_FOLD_BLOCK - 1, p, width);
}

#define CXFW_CRC_TARGET		__attribute__((target("pclmul,sse2")))

static inline CXFW_CRC_TARGET __m128i cxfw_crc_fold1(__m128i v, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(v, k, 0x00),
					   _mm_clmulepi64_si128(v, k, 0x11)), next);
}

static inline CXFW_CRC_TARGET __m128i cxfw_crc_load(const uint8_t *b)
{
	return _mm_loadu_si128((const __m128i *)(const void *)b);
}

/*
 * Fold @len (>= CXFW_CRC_FOLD_MIN) bytes at *@pb with register @crc into one block @out;
 * *@pb and *@plen are left at the tail still to go through the tables after @out.
 */
static CXFW_CRC_TARGET void cxfw_crc_fold_run(const struct cxfw_crc_fold *f, uint32_t crc,
					      const uint8_t **pb, size_t *plen,
					      uint8_t out[CXFW_CRC_FOLD_BLOCK])
{
	const __m128i ks = _mm_set_epi64x((long long)f->stride_hi, (long long)f->stride_lo);
	const __m128i kb = _mm_set_epi64x((long long)f->block_hi, (long long)f->block_lo);
	const uint8_t *b = *pb;
	size_t len = *plen;
	__m128i v0, v1, v2, v3;

	v0 = _mm_xor_si128(cxfw_crc_load(b), _mm_cvtsi32_si128((int)crc));
	v1 = cxfw_crc_load(b + CXFW_CRC_FOLD_BLOCK);
	v2 = cxfw_crc_load(b + 2 * CXFW_CRC_FOLD_BLOCK);
	v3 = cxfw_crc_load(b + 3 * CXFW_CRC_FOLD_BLOCK);
	b += CXFW_CRC_FOLD_STRIDE;
	len -= CXFW_CRC_FOLD_STRIDE;
	for (; len >= CXFW_CRC_FOLD_STRIDE;
	     len -= CXFW_CRC_FOLD_STRIDE, b += CXFW_CRC_FOLD_STRIDE) {
		v0 = cxfw_crc_fold1(v0, ks, cxfw_crc_load(b));
		v1 = cxfw_crc_fold1(v1, ks, cxfw_crc_load(b + CXFW_CRC_FOLD_BLOCK));
		v2 = cxfw_crc_fold1(v2, ks, cxfw_crc_load(b + 2 * CXFW_CRC_FOLD_BLOCK));
		v3 = cxfw_crc_fold1(v3, ks, cxfw_crc_load(b + 3 * CXFW_CRC_FOLD_BLOCK));
	}
	v1 = cxfw_crc_fold1(v0, kb, v1);
	v2 = cxfw_crc_fold1(v1, kb, v2);
	v3 = cxfw_crc_fold1(v2, kb, v3);
	for (; len >= CXFW_CRC_FOLD_BLOCK; len -= CXFW_CRC_FOLD_BLOCK, b += CXFW_CRC_FOLD_BLOCK)
		v3 = cxfw_crc_fold1(v3, kb, cxfw_crc_load(b));
	_mm_storeu_si128((__m128i *)(void *)out, v3);
	*pb = b;
	*plen = len;
}
#endif

static void cxfw_crc_init(void)
{
	unsigned int i, k;

	for (i = 0; i < CXFW_CRC_TABLE; i++) {
		uint32_t c32 = i;
		uint16_t c16 = (uint16_t)i;

		for (k = 0; k < 8; k++) {
			c32 = c32 & 1 ? (c32 >> 1) ^ CXFW_CRC32_POLY : c32 >> 1;
			c16 = (uint16_t)(c16 & 1 ? (c16 >> 1) ^ CXFW_CRC16_POLY : c16 >> 1);
		}
		cxfw_crc32_table[0][i] = c32;
		cxfw_crc16_table[0][i] = c16;
	}
	for (k = 1; k < CXFW_CRC_SLICES; k++) {
		for (i = 0; i < CXFW_CRC_TABLE; i++) {
			uint32_t c32 = cxfw_crc32_table[k - 1][i];
			uint16_t c16 = cxfw_crc16_table[k - 1][i];

			cxfw_crc32_table[k][i] = (c32 >> 8) ^ cxfw_crc32_table[0][c32 & 0xff];
			cxfw_crc16_table[k][i] = (uint16_t)((c16 >> 8) ^
							    cxfw_crc16_table[0][c16 & 0xff]);
		}
	}
#if CXFW_CRC_CLMUL
	cxfw_crc_fold_init(&cxfw_crc32_fold, CXFW_CRC32_POLY, CXFW_CRC32_WIDTH);
	cxfw_crc_fold_init(&cxfw_crc16_fold, CXFW_CRC16_POLY, CXFW_CRC16_WIDTH);
	__builtin_cpu_init();
	cxfw_crc_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
#endif
}

static uint32_t cxfw_crc32_table_update(uint32_t crc, const uint8_t *b, size_t len)
{
	const uint32_t (*t)[CXFW_CRC_TABLE] = cxfw_crc32_table;

	for (; len >= CXFW_CRC_SLICES; len -= CXFW_CRC_SLICES, b += CXFW_CRC_SLICES) {
		uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 |
				     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);

		crc = t[15][lo & 0xff] ^ t[14][(lo >> 8) & 0xff] ^ t[13][(lo >> 16) & 0xff] ^
		      t[12][lo >> 24] ^ t[11][b[4]] ^ t[10][b[5]] ^ t[9][b[6]] ^ t[8][b[7]] ^
		      t[7][b[8]] ^ t[6][b[9]] ^ t[5][b[10]] ^ t[4][b[11]] ^
		      t[3][b[12]] ^ t[2][b[13]] ^ t[1][b[14]] ^ t[0][b[15]];
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *b++) & 0xff];
	return crc;
}

static uint16_t cxfw_crc16_table_update(uint16_t crc, const uint8_t *b, size_t len)
{
	const uint16_t (*t)[CXFW_CRC_TABLE] = cxfw_crc16_table;

	for (; len >= CXFW_CRC_SLICES; len -= CXFW_CRC_SLICES, b += CXFW_CRC_SLICES)
		crc = t[15][(b[0] ^ crc) & 0xff] ^ t[14][(b[1] ^ (crc >> 8)) & 0xff] ^
		      t[13][b[2]] ^ t[12][b[3]] ^ t[11][b[4]] ^ t[10][b[5]] ^ t[9][b[6]] ^
		      t[8][b[7]] ^ t[7][b[8]] ^ t[6][b[9]] ^ t[5][b[10]] ^ t[4][b[11]] ^
		      t[3][b[12]] ^ t[2][b[13]] ^ t[1][b[14]] ^ t[0][b[15]];
	while (len--)
		crc = (uint16_t)((crc >> 8) ^ t[0][(crc ^ *b++) & 0xff]);
	return crc;
}

static uint32_t cxfw_crc32_update(uint32_t crc, const uint8_t *b, size_t len)
{
#if CXFW_CRC_CLMUL
	if (cxfw_crc_clmul && len >= CXFW_CRC_FOLD_MIN) {
		uint8_t v[CXFW_CRC_FOLD_BLOCK];

		cxfw_crc_fold_run(&cxfw_crc32_fold, crc, &b, &len, v);
		crc = cxfw_crc32_table_update(0, v, sizeof(v));
	}
#endif
	return cxfw_crc32_table_update(crc, b, len);
}

static uint16_t cxfw_crc16_update(uint16_t crc, const uint8_t *b, size_t len)
{
#if CXFW_CRC_CLMUL
	if (cxfw_crc_clmul && len >= CXFW_CRC_FOLD_MIN) {
		uint8_t v[CXFW_CRC_FOLD_BLOCK];

		cxfw_crc_fold_run(&cxfw_crc16_fold, crc, &b, &len, v);
		crc = cxfw_crc16_table_update(0, v, sizeof(v));
	}
#endif
	return cxfw_crc16_table_update(crc, b, len);
}

/* Byte offsets of the fields the ICRC treats as variant (1.8). */
#define CXFW_ICRC_LRH_VL_BYTE		0
#define CXFW_ICRC_LRH_VL_BITS		0xf0
#define CXFW_ICRC_GRH_TCLASS_BYTE	0	/* low nibble: TClass[7:4] */
#define CXFW_ICRC_GRH_TCLASS_BITS	0x0f
#define CXFW_ICRC_GRH_FLOW_FIRST	1	/* bytes 1..3: TClass[3:0], FlowLabel */
#define CXFW_ICRC_GRH_FLOW_LAST		3
#define CXFW_ICRC_GRH_HOPLMT_BYTE	7
#define CXFW_ICRC_BTH_RESV8A_BYTE	CXIB_OFFSET(CXIB_BTH_RESV8A)

uint32_t cxfw_icrc(const void *pkt, size_t len)
{
	uint32_t words[(CXIB_LRH_LEN + CXIB_GRH_LEN + CXIB_BTH_LEN) / 4];
	uint8_t *hdr = (uint8_t *)words;
	const uint8_t *b = pkt;
	size_t n, bth, i;
	bool global;

	pthread_once(&cxfw_crc_once, cxfw_crc_init);
	n = len < sizeof(words) ? len : sizeof(words);
	if (n)
		memcpy(hdr, b, n);
	global = n >= CXIB_LRH_LEN && CXIB_GET(words, CXIB_LRH_LNH) == CXIB_LNH_IBA_GLOBAL;
	if (global) {
		/* the whole LRH, TClass, FlowLabel and HopLmt */
		memset(hdr, CXFW_ICRC_VARIANT, CXIB_LRH_LEN);
		if (n > CXIB_LRH_LEN + CXFW_ICRC_GRH_TCLASS_BYTE)
			hdr[CXIB_LRH_LEN + CXFW_ICRC_GRH_TCLASS_BYTE] |= CXFW_ICRC_GRH_TCLASS_BITS;
		for (i = CXFW_ICRC_GRH_FLOW_FIRST; i <= CXFW_ICRC_GRH_FLOW_LAST; i++)
			if (n > CXIB_LRH_LEN + i)
				hdr[CXIB_LRH_LEN + i] = CXFW_ICRC_VARIANT;
		if (n > CXIB_LRH_LEN + CXFW_ICRC_GRH_HOPLMT_BYTE)
			hdr[CXIB_LRH_LEN + CXFW_ICRC_GRH_HOPLMT_BYTE] = CXFW_ICRC_VARIANT;
		bth = CXIB_LRH_LEN + CXIB_GRH_LEN;
	} else {
		if (n > CXFW_ICRC_LRH_VL_BYTE)
			hdr[CXFW_ICRC_LRH_VL_BYTE] |= CXFW_ICRC_LRH_VL_BITS;
		bth = CXIB_LRH_LEN;
	}
	if (n > bth + CXFW_ICRC_BTH_RESV8A_BYTE)
		hdr[bth + CXFW_ICRC_BTH_RESV8A_BYTE] = CXFW_ICRC_VARIANT;
	/* the masked copy of the headers, then the rest as it is */
	return ~cxfw_crc32_update(cxfw_crc32_update(CXFW_CRC32_INIT, hdr, n), b + n, len - n);
}

uint16_t cxfw_vcrc(const void *pkt, size_t len)
{
	const uint8_t *b = pkt;

	pthread_once(&cxfw_crc_once, cxfw_crc_init);
	return (uint16_t)~cxfw_crc16_update(CXFW_CRC16_INIT, b, len);
}
