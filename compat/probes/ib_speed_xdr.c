// SPDX-License-Identifier: GPL-2.0-only
/* enum ib_port_speed has IB_SPEED_XDR (200 Gb/s per lane) */
#include <rdma/ib_verbs.h>

const enum ib_port_speed cxib_probe_speed = IB_SPEED_XDR;
