# SPDX-License-Identifier: GPL-2.0-only
"""cxlab, the cxib lab, as a package: scripts/cxlab runs cxlab.cli.main().

  common     paths (TOP, CACHE, LABDIR), say(), LabError, table(), write_json()
  procs      the QEMU and relay processes this cxlab started: pid checks, stopping
  agent      the line protocol with scripts/guest/agent on a node's second serial port
  qmp        QEMU's machine protocol on a node's qmp.sock
  qemu       what a node is: its QEMU command line, inits, drivers, SM modes
  build      the build steps (QEMU, images, cxib.ko, the package) and the module index
  results    Status and JobResult: a node's verdict on a job, its table row and JSON
  jobs       running a script on nodes through their agents
  lab        class Lab: boot, load, power off, the management network, the SM
  scenarios  tests/e2e scenarios: lookup, their "# cxlab:" line, labs they need
  status     the status table (the guest's view and QEMU's)
  trace      command traces: a scenario's section, the cxib/mlx5 comparison
  commands   cmd_up, cmd_run, ...: one function per subcommand
  cli        the argparse front
  bench, netbench, nvmebench   cxlab bench (Documentation/bench.md)
"""
