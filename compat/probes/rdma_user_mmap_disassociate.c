// SPDX-License-Identifier: GPL-2.0-only
/* rdma_user_mmap_disassociate() revokes the user mappings of a registered device */
#include <rdma/ib_verbs.h>

void cxib_probe(struct ib_device *ibdev);
void cxib_probe(struct ib_device *ibdev)
{
	rdma_user_mmap_disassociate(ibdev);
}
