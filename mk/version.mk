# SPDX-License-Identifier: GPL-2.0-only
#
# cxib's version, written in one place: the top entry of debian/changelog, which the
# cxib-dkms package, its dkms.conf and the module DKMS builds from it carry.  A build from a
# git checkout adds the commit, "<version>+g<commit>[-dirty]", so that modinfo tells
# checkouts apart.  Included by the top-level Makefile, and by the top-level Kbuild when
# kbuild is run on a checkout without CXIB_VERSION=; dkms.conf passes the package's.
# Computed on first use, not when a makefile is read; CXIB_VERSION=... overrides it.

cxib_version_top := $(patsubst %/mk/version.mk,%,$(realpath $(lastword $(MAKEFILE_LIST))))
cxib_version = $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' $(1)/debian/changelog 2>/dev/null)$(if \
	$(wildcard $(1)/.git),+g$(shell git -C $(1) describe --always --dirty --exclude='*' 2>/dev/null))
CXIB_VERSION ?= $(eval CXIB_VERSION := $(call cxib_version,$(cxib_version_top)))$(CXIB_VERSION)
