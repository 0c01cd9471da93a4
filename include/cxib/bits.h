/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: byte order and bit-field accessors.
 *
 * Shared by the kernel driver and the device model, so only <linux/types.h> is used.
 *
 * A field is named by one macro that expands to "dword, high bit, low bit", counted as in the
 * PRM: dword N is the big-endian 32-bit word at byte offset 4*N of its structure and bit 31 is
 * its most significant bit.  For example
 *
 *	#define CXIB_ISEG_CMDIF_REV	1, 31, 16
 *
 * Every access goes through the accessors below; nothing else shifts or masks by hand.
 */
#ifndef _CXIB_BITS_H
#define _CXIB_BITS_H

#include <linux/types.h>

#ifndef __force
#define __force
#endif

static inline __u32 cxib_be32_to_host(__be32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32((__force __u32)v);
#else
	return (__force __u32)v;
#endif
}

static inline __be32 cxib_host_to_be32(__u32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__force __be32)__builtin_bswap32(v);
#else
	return (__force __be32)v;
#endif
}

static inline __u64 cxib_be64_to_host(__be64 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64((__force __u64)v);
#else
	return (__force __u64)v;
#endif
}

static inline __be64 cxib_host_to_be64(__u64 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__force __be64)__builtin_bswap64(v);
#else
	return (__force __be64)v;
#endif
}

/* Mask of bits hi..lo (inclusive) of a 32-bit word, 0 <= lo <= hi <= 31. */
#define CXIB_MASK(hi, lo) \
	((__u32)((0xffffffffULL >> (31 - (hi))) & ~((1ULL << (lo)) - 1)))

/*
 * Every accessor takes the field macro last and is variadic, so the field expands to its
 * numbers before the internal helper (which names them) sees it.
 *
 * A field may name its structure as a fourth element ("dword, high bit, low bit, type"):
 *
 *	#define CXIB_CQE_QPN	14, 23, 0, struct cxib_cqe64
 *
 * CXIB_GET and CXIB_SET then refuse at compile time a pointer to any other structure
 * ("negative width in bit-field '__cxib_field_of_another_structure'"); an untyped buffer
 * (void, bytes, dwords: a mailbox, a context copied into an array) is accepted, since nothing
 * says which structure it holds.  CXIB_GET64 and CXIB_SET64 check a tag the same way; the
 * other accessors accept the tag and ignore it.
 *
 * Every layout of include/cxib has a C type and its fields are tagged: contexts (CQC, MKC,
 * QPC, SRQC, XRC SRQC, WQC, RMPC, EQC, address path), entries (CQE, EQE, the send WQE's
 * segments, the command queue entry), the HCA and atomic capabilities, the HCA vport
 * context, the access registers, and each command's input and output (struct
 * cxib_<command>_in / _out in cmd.h and verbs.h: the fixed part; a PAS list or other
 * variable part follows it in the same buffer), and the mailbox block.  Untagged are the
 * command header every command shares (CXIB_CMD_IN_* / CXIB_CMD_OUT_*, and the byte that
 * every SRQ command reserves), single entries of PAS, MTT and P_Key lists, the inline and
 * XRC WQE segments (parts of a WQE built in place), registers and doorbells (the init
 * segment, the health buffer, doorbell records and UAR values: accessed by offset or as a
 * host-order value), and the wire and MAD layouts of ibwire.h, mad.h and pma.h.
 */
#define __CXIB_RAW(p)							\
	(__builtin_types_compatible_p(__typeof__(*(p)), void) ||	\
	 __builtin_types_compatible_p(__typeof__(*(p)), char) ||	\
	 __builtin_types_compatible_p(__typeof__(*(p)), __u8) ||	\
	 __builtin_types_compatible_p(__typeof__(*(p)), __u32) ||	\
	 __builtin_types_compatible_p(__typeof__(*(p)), __be32))
/* A compile error naming @what unless @cond holds: a bit-field of negative width. */
#define __CXIB_REQUIRE(cond, what)					\
	((void)sizeof(struct { unsigned int what : 1 - 2 * !(cond); }))
#define __CXIB_OF(p, type)						\
	__CXIB_REQUIRE(__CXIB_RAW(p) ||					\
		       __builtin_types_compatible_p(__typeof__(*(p)), type), \
		       __cxib_field_of_another_structure)
/*
 * The variant for a tagged field (4 elements) or an untagged one (3): the 5th argument when
 * the field comes last, the 6th when a value follows it.
 */
#define __CXIB_PICK(a, b, c, d, e, ...)		e
#define __CXIB_PICK6(a, b, c, d, e, f, ...)	f

#define __CXIB_DW(dw, hi, lo, ...)		(dw)
#define __CXIB_FMASK(dw, hi, lo, ...)		CXIB_MASK(hi, lo)
#define __CXIB_FIELD_GET3(dw, hi, lo, v)	(((__u32)(v) & CXIB_MASK(hi, lo)) >> (lo))
#define __CXIB_FIELD_GET4(dw, hi, lo, t, v)	__CXIB_FIELD_GET3(dw, hi, lo, v)
#define __CXIB_FIELD_GET(...)						\
	__CXIB_PICK6(__VA_ARGS__, __CXIB_FIELD_GET4, __CXIB_FIELD_GET3, ~)(__VA_ARGS__)
#define __CXIB_FIELD_PREP3(dw, hi, lo, x)	(((__u32)(x) << (lo)) & CXIB_MASK(hi, lo))
#define __CXIB_FIELD_PREP4(dw, hi, lo, t, x)	__CXIB_FIELD_PREP3(dw, hi, lo, x)
#define __CXIB_FIELD_PREP(...)						\
	__CXIB_PICK6(__VA_ARGS__, __CXIB_FIELD_PREP4, __CXIB_FIELD_PREP3, ~)(__VA_ARGS__)
#define __CXIB_GET3(p, dw, hi, lo)					\
	__CXIB_FIELD_GET3(dw, hi, lo, cxib_be32_to_host(((const __be32 *)(p))[dw]))
#define __CXIB_GET4(p, dw, hi, lo, t)	(__CXIB_OF(p, t), __CXIB_GET3(p, dw, hi, lo))
#define __CXIB_GET(p, ...)						\
	__CXIB_PICK(__VA_ARGS__, __CXIB_GET4, __CXIB_GET3, ~)(p, __VA_ARGS__)
#define __CXIB_SET3(p, dw, hi, lo, x)					\
	do {								\
		__be32 *__w = &((__be32 *)(p))[dw];			\
		__u32 __v = cxib_be32_to_host(*__w) & ~CXIB_MASK(hi, lo); \
									\
		*__w = cxib_host_to_be32(__v |				\
					 __CXIB_FIELD_PREP3(dw, hi, lo, x)); \
	} while (0)
#define __CXIB_SET4(p, dw, hi, lo, t, x)				\
	do {								\
		__CXIB_OF(p, t);					\
		__CXIB_SET3(p, dw, hi, lo, x);				\
	} while (0)
#define __CXIB_SET(p, ...)						\
	__CXIB_PICK6(__VA_ARGS__, __CXIB_SET4, __CXIB_SET3, ~)(p, __VA_ARGS__)

/*
 * A field's position without its structure, "dword, high bit, low bit", for tables that
 * list fields of several structures (firmware/core/cmdtrace.c).
 */
#define __CXIB_POS3(dw, hi, lo)		dw, hi, lo
#define __CXIB_POS4(dw, hi, lo, t)	dw, hi, lo
#define CXIB_FIELD_POS(...)						\
	__CXIB_PICK(__VA_ARGS__, __CXIB_POS4, __CXIB_POS3, ~)(__VA_ARGS__)

/* Dword index, byte offset and in-dword mask of a field: CXIB_OFFSET(CXIB_ISEG_CMDIF_REV). */
#define CXIB_DW(...)		__CXIB_DW(__VA_ARGS__)
#define CXIB_OFFSET(...)	(4 * __CXIB_DW(__VA_ARGS__))
#define CXIB_FMASK(...)		__CXIB_FMASK(__VA_ARGS__)

/*
 * Extract / place a field in a host-order copy of its dword (e.g. an MMIO register value):
 * CXIB_FIELD_GET(CXIB_ISEG_CMDIF_REV, v), CXIB_FIELD_PREP(CXIB_ISEG_CMDIF_REV, 5).
 */
#define CXIB_FIELD_GET(...)	__CXIB_FIELD_GET(__VA_ARGS__)
#define CXIB_FIELD_PREP(...)	__CXIB_FIELD_PREP(__VA_ARGS__)
/* The largest value a field holds: CXIB_FIELD_MAX(CXIB_WQE_UMR_XLT_OCTOWORDS) is 0xffff. */
#define CXIB_FIELD_MAX(...)	__CXIB_FIELD_GET(__VA_ARGS__, 0xffffffffU)

/*
 * Read / write a field of a big-endian structure viewed as an array of __be32:
 * CXIB_GET(p, FIELD) and CXIB_SET(p, FIELD, value).  CXIB_SET leaves the other bits of the
 * dword alone.
 */
#define CXIB_GET(p, ...)	__CXIB_GET(p, __VA_ARGS__)
#define CXIB_SET(p, ...)	__CXIB_SET(p, __VA_ARGS__)

/*
 * 64-bit fields are named "dword, 63, 0": a big-endian quadword whose high half is dword
 * @dw and low half dword @dw + 1 (only 4-byte alignment is needed, as in NodeInfo's GUIDs
 * at byte 12).  They are read and written only with CXIB_GET64 / CXIB_SET64, which refuse a
 * narrower field at compile time ("__cxib_not_a_64bit_field"); handing a 64-bit field to
 * CXIB_GET or CXIB_SET draws a compiler warning (negative shift count).  A 64-bit field may
 * be tagged with its structure like any other, with the same check.
 */
#define __CXIB_IS64(hi, lo)						\
	__CXIB_REQUIRE((hi) == 63 && (lo) == 0, __cxib_not_a_64bit_field)
#define __CXIB_GET64_3(p, dw, hi, lo)					\
	(__CXIB_IS64(hi, lo),						\
	 (__u64)cxib_be32_to_host(((const __be32 *)(p))[dw]) << 32 |	\
	 cxib_be32_to_host(((const __be32 *)(p))[(dw) + 1]))
#define __CXIB_GET64_4(p, dw, hi, lo, t)				\
	(__CXIB_OF(p, t), __CXIB_GET64_3(p, dw, hi, lo))
#define __CXIB_SET64_3(p, dw, hi, lo, x)				\
	do {								\
		__be32 *__q = &((__be32 *)(p))[dw];			\
		__u64 __x = (x);					\
									\
		__CXIB_IS64(hi, lo);					\
		__q[0] = cxib_host_to_be32((__u32)(__x >> 32));		\
		__q[1] = cxib_host_to_be32((__u32)(__x & 0xffffffffu)); \
	} while (0)
#define __CXIB_SET64_4(p, dw, hi, lo, t, x)				\
	do {								\
		__CXIB_OF(p, t);					\
		__CXIB_SET64_3(p, dw, hi, lo, x);			\
	} while (0)
#define CXIB_GET64(p, ...)						\
	__CXIB_PICK(__VA_ARGS__, __CXIB_GET64_4, __CXIB_GET64_3, ~)(p, __VA_ARGS__)
#define CXIB_SET64(p, ...)						\
	__CXIB_PICK6(__VA_ARGS__, __CXIB_SET64_4, __CXIB_SET64_3, ~)(p, __VA_ARGS__)

/*
 * Compile-time check of a layout at file scope, in the kernel and in userspace alike:
 * CXIB_STATIC_ASSERT(sizeof(struct cxib_eqe) == 64).  A false expression is a compile
 * error ("size of array 'cxib_static_assert_<line>' is negative") at the assertion's line.
 * (Repeating an identical typedef is valid C11, so two assertions may share a line number.)
 */
#define __CXIB_CAT2(a, b)		a##b
#define __CXIB_CAT(a, b)		__CXIB_CAT2(a, b)
#define CXIB_STATIC_ASSERT(expr)					\
	typedef char __CXIB_CAT(cxib_static_assert_, __LINE__)[(expr) ? 1 : -1]

#endif /* _CXIB_BITS_H */
