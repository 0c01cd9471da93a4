// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: firmware initialization and teardown of the function (PRM §4.1, §4.2).
 *
 * The order of PRM §4.1 without what an InfiniBand-only function does not need (Ethernet,
 * e-switch, flow steering): ENABLE_HCA, the interface step sequence ID (QUERY_ISSI, SET_ISSI
 * 1 when supported), the boot pages, HOST_ENDIANNESS, the general capabilities (QUERY_HCA_CAP
 * current and max, SET_HCA_CAP), the init pages, INIT_HCA, the capabilities in force, and
 * QUERY_ADAPTER.  Teardown (PRM §4.2): TEARDOWN_HCA, every page taken back, DISABLE_HCA.
 *
 * These steps only issue commands, so the live KUnit suites run them on a function they
 * have taken over, with the driver's own code.
 */

#include <kunit/visibility.h>
#include <linux/bits.h>
#include <linux/slab.h>

#include "cxib.h"

/* The ISSI: 1 if the firmware speaks it, else 0 (also when it does not know QUERY_ISSI). */
static int cxib_set_issi(struct cxib_dev *dev)
{
	u16 current_issi;
	u32 supported;
	int err;

	err = cxib_cmd_query_issi(dev, &supported, &current_issi);
	if (err == -EOPNOTSUPP) {
		dev->issi = CXIB_ISSI_0;
		return 0;
	}
	if (err)
		return err;

	if (supported & BIT(CXIB_ISSI_1)) {
		err = cxib_cmd_set_issi(dev, CXIB_ISSI_1);
		if (err)
			return err;
		dev->issi = CXIB_ISSI_1;
	} else if (!supported || (supported & BIT(CXIB_ISSI_0))) {
		dev->issi = CXIB_ISSI_0;
	} else {
		dev_err(&dev->pdev->dev, "firmware speaks neither ISSI 0 nor 1 (0x%08x)\n",
			supported);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Write the general capabilities cxib wants: QUERY_HCA_CAP current and max, SET_HCA_CAP. */
static int cxib_set_caps(struct cxib_dev *dev)
{
	struct cxib_hca_cap *cap;	/* current, max, to set */
	int err;

	cap = kcalloc(3, sizeof(*cap), GFP_KERNEL);
	if (!cap)
		return -ENOMEM;
	err = cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_GENERAL, CXIB_HCA_CAP_MODE_CUR,
				     &cap[0]);
	if (err)
		goto out;
	err = cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_GENERAL, CXIB_HCA_CAP_MODE_MAX,
				     &cap[1]);
	if (err)
		goto out;
	cxib_caps_prepare_set(&cap[2], &cap[0], &cap[1]);
	err = cxib_cmd_set_hca_cap(dev, CXIB_HCA_CAP_TYPE_GENERAL, &cap[2]);
	if (err || !CXIB_GET(cap[2].dw, CXIB_HCA_CAP_ATOMIC))
		goto out;

	/*
	 * The atomic capabilities: a device returns an atomic's original value big-endian
	 * unless told to use the host's order (ACCESS_REG HOST_ENDIANNESS), which is what
	 * the verbs promise.  Ask for it where the device can; cxib_query_caps() leaves
	 * atomics off where it cannot (as mlx5_core's handle_hca_cap_atomic() and mlx5_ib's
	 * get_atomic_caps() do).
	 */
	err = cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_ATOMIC, CXIB_HCA_CAP_MODE_CUR,
				     &cap[0]);
	if (err || !CXIB_GET(cap[0].dw, CXIB_ATOMIC_CAP_SUPPORTED_REQ_8B_ENDIANNESS_MODE_1))
		goto out;
	CXIB_SET(cap[0].dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE, CXIB_ATOMIC_REQ_MODE_HOST);
	err = cxib_cmd_set_hca_cap(dev, CXIB_HCA_CAP_TYPE_ATOMIC, &cap[0]);
out:
	kfree(cap);
	return err;
}

/* Whether the atomic capabilities give the verbs' 8-byte atomics with host-order results. */
static bool cxib_atomic_caps_usable(const struct cxib_atomic_cap *acap)
{
	u32 ops = CXIB_ATOMIC_OPS_CMP_SWAP | CXIB_ATOMIC_OPS_FETCH_ADD;

	return (CXIB_GET(acap, CXIB_ATOMIC_CAP_OPERATIONS) & ops) == ops &&
	       (CXIB_GET(acap, CXIB_ATOMIC_CAP_SIZE_QP) & CXIB_ATOMIC_SIZE_8B) &&
	       CXIB_GET(acap, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE) ==
	       CXIB_ATOMIC_REQ_MODE_HOST;
}

/* Read the capabilities in force after INIT_HCA and check cxib can drive the function. */
static int cxib_query_caps(struct cxib_dev *dev)
{
	struct cxib_hca_cap *cap;
	int err;

	cap = kzalloc(sizeof(*cap), GFP_KERNEL);
	if (!cap)
		return -ENOMEM;
	err = cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_GENERAL, CXIB_HCA_CAP_MODE_CUR, cap);
	if (!err)
		cxib_caps_parse(&dev->caps, cap);
	if (!err && dev->caps.atomic) {
		err = cxib_cmd_query_hca_cap(dev, CXIB_HCA_CAP_TYPE_ATOMIC,
					     CXIB_HCA_CAP_MODE_CUR, cap);
		/* the same room, now holding the atomic capabilities (same size) */
		BUILD_BUG_ON(sizeof(struct cxib_atomic_cap) != sizeof(*cap));
		if (!err && !cxib_atomic_caps_usable((const void *)cap)) {
			dev_info(&dev->pdev->dev,
				 "atomics off: the device lacks 8-byte CS/FA with host-order results\n");
			dev->caps.atomic = false;
		}
	}
	kfree(cap);
	if (err)
		return err;

	if (dev->caps.port_type != CXIB_CAP_PORT_TYPE_IB) {
		dev_err(&dev->pdev->dev,
			"port type %u is not InfiniBand: this function is for mlx5_core\n",
			dev->caps.port_type);
		return -EOPNOTSUPP;
	}
	if (!dev->caps.num_ports) {
		dev_err(&dev->pdev->dev, "device reports no ports\n");
		return -ENODEV;
	}
	return 0;
}

/**
 * cxib_hca_init() - initialize the function's firmware (PRM §4.1)
 * @dev: the device, with its command queue and page accounting set up
 *
 * Fills @dev->issi, @dev->caps, @dev->board_id and @dev->vendor_id.
 *
 * Return: 0 or a negative errno, with the function disabled again and its pages back.
 */
int cxib_hca_init(struct cxib_dev *dev)
{
	int err;

	err = cxib_cmd_enable_hca(dev);
	if (err) {
		dev_err(&dev->pdev->dev, "ENABLE_HCA failed: %d\n", err);
		return err;
	}
	err = cxib_set_issi(dev);
	if (err)
		goto err_disable_hca;
	err = cxib_pages_supply(dev, CXIB_QUERY_PAGES_OP_MOD_BOOT);
	if (err)
		goto err_reclaim_pages;
	err = cxib_cmd_set_host_endianness(dev);
	if (err)
		goto err_reclaim_pages;
	err = cxib_set_caps(dev);
	if (err)
		goto err_reclaim_pages;
	err = cxib_pages_supply(dev, CXIB_QUERY_PAGES_OP_MOD_INIT);
	if (err)
		goto err_reclaim_pages;
	err = cxib_cmd_init_hca(dev);
	if (err) {
		dev_err(&dev->pdev->dev, "INIT_HCA failed: %d\n", err);
		goto err_reclaim_pages;
	}
	err = cxib_query_caps(dev);
	if (err)
		goto err_teardown_hca;
	err = cxib_cmd_query_adapter(dev, dev->board_id, &dev->vendor_id);
	if (err)
		goto err_teardown_hca;

	dev_dbg(&dev->pdev->dev, "initialized: ISSI %u, board %s, %u pages lent\n", dev->issi,
		dev->board_id, cxib_pages_count(dev));
	return 0;

err_teardown_hca:
	cxib_cmd_teardown_hca(dev, CXIB_TEARDOWN_HCA_PROFILE_GRACEFUL_CLOSE);
err_reclaim_pages:
	cxib_pages_reclaim(dev);
err_disable_hca:
	cxib_cmd_disable_hca(dev);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_hca_init);

/**
 * cxib_hca_cleanup() - tear the function's firmware down (PRM §4.2)
 * @dev: the device, initialized by cxib_hca_init(), with no EQ or UAR left
 *
 * Failures are logged and teardown goes on.
 */
void cxib_hca_cleanup(struct cxib_dev *dev)
{
	cxib_cmd_teardown_hca(dev, CXIB_TEARDOWN_HCA_PROFILE_GRACEFUL_CLOSE);
	cxib_pages_reclaim(dev);
	cxib_cmd_disable_hca(dev);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_hca_cleanup);
