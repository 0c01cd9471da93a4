// SPDX-License-Identifier: GPL-2.0-only
/* drivers enable AER error reporting themselves: pci_enable_pcie_error_reporting() */
#include <linux/aer.h>
#include <linux/pci.h>

int cxib_probe(struct pci_dev *pdev);
int cxib_probe(struct pci_dev *pdev)
{
	return pci_enable_pcie_error_reporting(pdev);
}
