// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the InfiniBand device: registration with the RDMA core, the device and port
 * queries, and the device's sysfs attributes (port events are dispatched by eq.c).
 *
 * The device registers as an mlx5 device (driver_id RDMA_DRIVER_MLX5 and mlx5's uverbs ABI
 * version), so that rdma-core binds the stock libmlx5 provider to it.  Port attributes come
 * from the firmware's subnet management agent through MAD_IFC (mad.c), as a subnet manager
 * sees them; capability limits come from the device capabilities (fw.c).
 *
 * Besides the device level (queries, the port capability mask, user contexts with their
 * UAR pages in ucontext.c) it offers the kernel verbs: PDs, MRs, CQs, QPs (RC, UC, UD, SMI,
 * GSI; qp.c, wr.c), AHs, SRQs, so the RDMA core registers it with kernel verbs and kernel
 * clients (ib_mad with its QP0/QP1, ib_cm, IPoIB) attach to it.
 */

#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/ib_mad.h>
#include <rdma/mlx5-abi.h>

#include "cxib.h"

/* 2^log as an int attribute, saturated. */
static int cxib_log2_int(unsigned int log)
{
	return log >= 31 ? INT_MAX : 1 << log;
}

static int cxib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			     struct ib_udata *uhw)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	const struct cxib_caps *caps = &dev->caps;
	struct mlx5_ib_query_device_resp resp = {};

	/*
	 * libmlx5 sends no request; it asks for struct mlx5_ib_query_device_resp (the context
	 * says cmds_supp_uhw QUERY_DEVICE).  cxib has none of the offloads it describes (TSO,
	 * RSS, CQE compression, packet pacing, striding RQ, ...): all zero.
	 */
	if (uhw && uhw->inlen && !ib_is_udata_cleared(uhw, 0, uhw->inlen))
		return -EINVAL;
	if (uhw && uhw->outlen) {
		if (uhw->outlen < offsetofend(typeof(resp), response_length))
			return -EINVAL;
		resp.response_length = min_t(size_t, uhw->outlen, sizeof(resp));
		if (ib_copy_to_udata(uhw, &resp, resp.response_length))
			return -EFAULT;
	}

	props->fw_ver = (u64)dev->fw_rev.major << 32 | (u64)dev->fw_rev.minor << 16 |
			dev->fw_rev.subminor;
	props->sys_image_guid = dev->sys_image_guid;
	props->vendor_id = dev->vendor_id;
	props->vendor_part_id = dev->pdev->device;
	props->hw_ver = dev->pdev->revision;
	props->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT | IB_DEVICE_SYS_IMAGE_GUID;
	/*
	 * MEM_MGT_EXTENSIONS: alloc_mr, map_mr_sg and IB_WR_REG_MR / IB_WR_LOCAL_INV.  A REG_MR
	 * sets the key's page size, which a device with umr_modify_entity_size_disabled
	 * refuses: none there (as mlx5_ib's query_device).
	 */
	if (!caps->umr_fixed_entity_size)
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	/*
	 * IPoIB: checksums filled in and checked, TCP segmentation (IB_WR_LSO), on UD QPs
	 * created with IB_QP_CREATE_IPOIB_UD_LSO -- what mlx5_ib derives from the same bit.
	 */
	if (caps->ipoib_offloads) {
		props->device_cap_flags |= IB_DEVICE_UD_IP_CSUM;
		props->kernel_cap_flags |= IBK_UD_TSO;
	}
	props->page_size_cap =
		GENMASK_ULL(63, max_t(u8, caps->log_pg_sz, CXIB_ADAPTER_PAGE_SHIFT));
	props->max_mr_size = caps->log_max_mrw_sz >= 64 ? U64_MAX :
			     BIT_ULL(caps->log_max_mrw_sz);
	props->max_qp = cxib_log2_int(caps->log_max_qp);
	props->max_qp_wr = cxib_log2_int(caps->log_max_qp_sz);
	props->max_cq = cxib_log2_int(caps->log_max_cq);
	props->max_cqe = cxib_log2_int(caps->log_max_cq_sz) - 1;
	props->max_mr = cxib_log2_int(caps->log_max_mkey);
	props->max_pd = cxib_log2_int(caps->log_max_pd);
	props->max_qp_rd_atom = cxib_log2_int(caps->log_max_ra_res_qp);
	props->max_qp_init_rd_atom = cxib_log2_int(caps->log_max_ra_req_qp);
	props->max_res_rd_atom = props->max_qp_rd_atom * props->max_qp;
	if (caps->log_max_srq) {
		props->max_srq = cxib_log2_int(caps->log_max_srq);
		props->max_srq_wr = cxib_log2_int(caps->log_max_srq_sz) - 1;
		props->max_srq_sge = cxib_srq_max_sge(caps);
	}
	props->max_mcast_grp = cxib_log2_int(caps->log_max_mcg);
	props->max_mcast_qp_attach = caps->max_qp_mcg;
	props->max_total_mcast_qp_attach = props->max_mcast_qp_attach * props->max_mcast_grp;
	props->max_fast_reg_page_list_len = 1u << min_t(u8, caps->log_max_klm_list_size, 31);
	props->max_pkeys = cxib_caps_pkey_table_len(caps);
	props->local_ca_ack_delay = caps->local_ca_ack_delay;
	props->atomic_cap = IB_ATOMIC_NONE;
	props->masked_atomic_cap = IB_ATOMIC_NONE;
	if (caps->cq_moderation) {
		props->cq_caps.max_cq_moderation_count = CXIB_CQ_MAX_COUNT;
		props->cq_caps.max_cq_moderation_period = CXIB_CQ_MAX_PERIOD;
	}
	cxib_qp_caps(dev, props);
	return 0;
}

static int cxib_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *props)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	u8 *pi;
	int err;

	pi = kzalloc(CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!pi)
		return -ENOMEM;
	err = cxib_mad_query(dev, port, CXIB_SMP_ATTR_PORT_INFO, port, pi);
	if (!err) {
		cxib_mad_port_info_to_attr(pi, props);
		props->pkey_tbl_len = cxib_caps_pkey_table_len(&dev->caps);
		props->max_msg_sz = 1u << min_t(u8, dev->caps.log_max_msg, 31);
	}
	kfree(pi);
	return err;
}

static int cxib_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int cxib_query_gid(struct ib_device *ibdev, u32 port, int index, union ib_gid *gid)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	u8 *data;
	int err;

	if (index < 0)
		return -EINVAL;
	data = kzalloc(CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!data)
		return -ENOMEM;

	/* GID = the port's subnet prefix (PortInfo) and the GUID at @index (GUIDInfo). */
	err = cxib_mad_query(dev, port, CXIB_SMP_ATTR_PORT_INFO, port, data);
	if (err)
		goto out;
	gid->global.subnet_prefix =
		cpu_to_be64(CXIB_GET64(data, CXIB_SMP_PORT_INFO_GID_PREFIX));
	err = cxib_mad_query(dev, port, CXIB_SMP_ATTR_GUID_INFO,
			     index / CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK, data);
	if (err)
		goto out;
	gid->global.interface_id =
		cxib_mad_guid_from_info(data, index % CXIB_SMP_GUID_INFO_GUIDS_PER_BLOCK);
out:
	kfree(data);
	return err;
}

static int cxib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	u8 *data;
	int err;

	data = kzalloc(CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	err = cxib_mad_query(dev, port, CXIB_SMP_ATTR_PKEY_TABLE,
			     index / CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK, data);
	if (!err)
		*pkey = cxib_mad_pkey_from_table(data,
						 index % CXIB_SMP_PKEY_TABLE_PKEYS_PER_BLOCK);
	kfree(data);
	return err;
}

/*
 * The port capability mask is the one the SMA reports in PortInfo; the driver changes it
 * by writing the PCAP register.  Shutting the port down, the InitType and resetting the
 * Q_Key violation counter are not supported.
 */
static int cxib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			    struct ib_port_modify *props)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	__be32 pcap[CXIB_REG_PCAP_LEN / 4] = {};
	u32 cur, want;
	u8 *pi;
	int err;

	if (mask & (IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE | IB_PORT_RESET_QKEY_CNTR |
		    IB_PORT_OPA_MASK_CHG))
		return -EOPNOTSUPP;

	pi = kzalloc(CXIB_SMP_DATA_SIZE, GFP_KERNEL);
	if (!pi)
		return -ENOMEM;

	mutex_lock(&dev->port_lock);
	err = cxib_mad_query(dev, port, CXIB_SMP_ATTR_PORT_INFO, port, pi);
	if (err)
		goto out;
	cur = CXIB_GET(pi, CXIB_SMP_PORT_INFO_CAPABILITY_MASK);
	want = (cur | props->set_port_cap_mask) & ~props->clr_port_cap_mask;
	if (want == cur)
		goto out;

	CXIB_SET(pcap, CXIB_REG_PCAP_LOCAL_PORT, port);
	CXIB_SET(pcap, CXIB_REG_PCAP_PORT_CAPABILITY_MASK, want);
	err = cxib_cmd_access_reg(dev, CXIB_ACCESS_REG_OP_MOD_WRITE, CXIB_REG_PCAP, 0, pcap,
				  NULL, sizeof(pcap));
out:
	mutex_unlock(&dev->port_lock);
	kfree(pi);
	return err;
}

/*
 * ib_device_ops.modify_device: only the node description (what rdma-ndd and the sysfs
 * node_desc file set).  The firmware's SMA answers NodeDescription queries from its copy,
 * so the new description goes there first (ACCESS_REG NODE_DESC), as mlx5_ib does.
 */
static int cxib_modify_device(struct ib_device *ibdev, int mask, struct ib_device_modify *props)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	int err;

	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (!(mask & IB_DEVICE_MODIFY_NODE_DESC))
		return 0;
	BUILD_BUG_ON(sizeof(props->node_desc) != CXIB_REG_NODE_DESC_LEN);
	err = cxib_cmd_access_reg(dev, CXIB_ACCESS_REG_OP_MOD_WRITE, CXIB_REG_NODE_DESC, 0,
				  props->node_desc, NULL, CXIB_REG_NODE_DESC_LEN);
	if (err)
		return err;
	memcpy(ibdev->node_desc, props->node_desc, sizeof(ibdev->node_desc));
	return 0;
}

static void cxib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%04u", dev->fw_rev.major,
		 dev->fw_rev.minor, dev->fw_rev.subminor);
}

/* ---- sysfs ------------------------------------------------------------------------------ */

static ssize_t hw_rev_show(struct device *device, struct device_attribute *attr, char *buf)
{
	struct cxib_dev *dev = rdma_device_to_drv_device(device, struct cxib_dev, ibdev);

	return sysfs_emit(buf, "%x\n", dev->pdev->revision);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t hca_type_show(struct device *device, struct device_attribute *attr, char *buf)
{
	struct cxib_dev *dev = rdma_device_to_drv_device(device, struct cxib_dev, ibdev);

	return sysfs_emit(buf, "MT%u\n", dev->pdev->device);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device, struct device_attribute *attr, char *buf)
{
	struct cxib_dev *dev = rdma_device_to_drv_device(device, struct cxib_dev, ibdev);

	return sysfs_emit(buf, "%s\n", dev->board_id);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *cxib_dev_attributes[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL
};

static const struct attribute_group cxib_dev_attr_group = {
	.attrs = cxib_dev_attributes,
};

/* ---- Registration ------------------------------------------------------------------------- */

static const struct ib_device_ops cxib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_MLX5,
	.uverbs_abi_ver = MLX5_IB_UVERBS_ABI_VERSION,

	.alloc_mr = cxib_alloc_mr,
	.alloc_pd = cxib_alloc_pd,
	.alloc_ucontext = cxib_alloc_ucontext,
	.attach_mcast = cxib_attach_mcast,
	.create_ah = cxib_create_ah,
	.create_cq = cxib_create_cq,
	.create_qp = cxib_create_qp,
	.create_srq = cxib_create_srq,
	.dealloc_pd = cxib_dealloc_pd,
	.dealloc_ucontext = cxib_dealloc_ucontext,
	.dereg_mr = cxib_dereg_mr,
	.destroy_ah = cxib_destroy_ah,
	.destroy_cq = cxib_destroy_cq,
	.destroy_qp = cxib_destroy_qp,
	.destroy_srq = cxib_destroy_srq,
	.detach_mcast = cxib_detach_mcast,
	.device_group = &cxib_dev_attr_group,
	.disassociate_ucontext = cxib_disassociate_ucontext,
	.drain_rq = cxib_drain_rq,
	.drain_sq = cxib_drain_sq,
	.get_dev_fw_str = cxib_get_dev_fw_str,
	.get_dma_mr = cxib_get_dma_mr,
	.get_port_immutable = cxib_get_port_immutable,
	.get_vector_affinity = cxib_get_vector_affinity,
	.map_mr_sg = cxib_map_mr_sg,
	.mmap = cxib_mmap,
	.mmap_free = cxib_mmap_free,
	.modify_device = cxib_modify_device,
	.modify_port = cxib_modify_port,
	.modify_qp = cxib_modify_qp,
	.modify_srq = cxib_modify_srq,
	.poll_cq = cxib_poll_cq,
	.post_recv = cxib_post_recv,
	.post_send = cxib_post_send,
	.post_srq_recv = cxib_post_srq_recv,
	.process_mad = cxib_process_mad,
	.query_device = cxib_query_device,
	.query_ah = cxib_query_ah,
	.query_gid = cxib_query_gid,
	.query_pkey = cxib_query_pkey,
	.query_port = cxib_query_port,
	.query_qp = cxib_query_qp,
	.query_srq = cxib_query_srq,
	.reg_user_mr = cxib_reg_user_mr,
	.req_notify_cq = cxib_req_notify_cq,
	.modify_cq = cxib_modify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, cxib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, cxib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, cxib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, cxib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, cxib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, cxib_ucontext, ibucontext),
};

/**
 * cxib_ib_register() - probe phase 2: register the InfiniBand device
 * @dev: the device, brought up (cxib_hw_init())
 *
 * Reads the node's identity from the SMA, registers "cxib_%d" and creates the UMR QP.
 *
 * Return: 0 or a negative errno.
 */
int cxib_ib_register(struct cxib_dev *dev)
{
	struct ib_device *ibdev = &dev->ibdev;
	int err;

	mutex_init(&dev->port_lock);
	if (dev->caps.num_ports > 1)
		dev_info(&dev->pdev->dev, "device has %u ports, cxib drives port 1\n",
			 dev->caps.num_ports);

	err = cxib_mad_query_node(dev);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot read the node's identity from the SMA: %d\n",
			err);
		return err;
	}
	/* Where the ports' master SM is now, for the SM_CHANGE snoop of process_mad. */
	spin_lock_init(&dev->sm_lock);
	err = cxib_mad_sm_init(dev);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot read PortInfo from the SMA: %d\n", err);
		return err;
	}

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = CXIB_IB_PORTS;
	ibdev->num_comp_vectors = dev->eqt.num_comp;
	ibdev->dev.parent = &dev->pdev->dev;
	ib_set_device_ops(ibdev, &cxib_dev_ops);
	/* Kernel QPs ring BlueFlame register 0 of the driver's UAR. */
	spin_lock_init(&dev->bf_lock);
	dev->bf_offset = 0;

	err = cxib_res_init(dev);
	if (err)
		return err;
	err = cxib_counters_init(dev);
	if (err)
		goto err_res_cleanup;

	err = ib_register_device(ibdev, "cxib_%d", &dev->pdev->dev);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot register the InfiniBand device: %d\n", err);
		goto err_counters_cleanup;
	}
	set_bit(CXIB_DEV_IB_ACTIVE, &dev->flags);
	err = cxib_umr_init(dev);
	if (err) {
		clear_bit(CXIB_DEV_IB_ACTIVE, &dev->flags);
		cxib_eqs_sync_async(dev);
		ib_unregister_device(ibdev);
		goto err_counters_cleanup;
	}
	ibdev_info(ibdev, "node GUID %016llx, %u completion vectors\n",
		   be64_to_cpu(ibdev->node_guid), ibdev->num_comp_vectors);
	return 0;

err_counters_cleanup:
	cxib_counters_cleanup(dev);
err_res_cleanup:
	cxib_res_cleanup(dev);
	return err;
}

/**
 * cxib_ib_unregister() - undo cxib_ib_register()
 * @dev: the device
 */
void cxib_ib_unregister(struct cxib_dev *dev)
{
	cxib_umr_cleanup(dev);
	clear_bit(CXIB_DEV_IB_ACTIVE, &dev->flags);
	/* An async EQ handler that saw the device registered is done before it goes. */
	cxib_eqs_sync_async(dev);
	ib_unregister_device(&dev->ibdev);
	cxib_counters_cleanup(dev);
	cxib_res_cleanup(dev);
	mutex_destroy(&dev->port_lock);
}
