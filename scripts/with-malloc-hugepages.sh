#!/bin/sh
# Runs a command with glibc's malloc on transparent huge pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1)
# unless the caller's GLIBC_TUNABLES already sets glibc.malloc.hugetlb; other tunables are kept.
#
# Why: the optimizer's tables are tens of MB (hundreds at 1M transactions), and the first touch of a
# 4 KiB page costs 12-17 us on the VMs we measure on (a 2 MiB page: 0.25 us per 4 KiB). With huge
# pages a process's first cycles cost 24-36 % less, and the CLI's whole process about 40 % less
# (docs/performance-log.md, eighth session). glibc reads the variable at start-up only, so it is set
# here, before Node starts. Without effect (and harmless) where the kernel's THP mode is `never` or the
# C library is not glibc.
case ":${GLIBC_TUNABLES:-}:" in
  *:glibc.malloc.hugetlb=*) ;;
  *) GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1"; export GLIBC_TUNABLES ;;
esac
exec "$@"
