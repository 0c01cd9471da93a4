/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Generated trace helpers for hw/cxib (trace_events_subdirs entry 'hw/cxib'). */
#include "trace/trace-hw_cxib.h"
