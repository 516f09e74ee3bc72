# SPDX-License-Identifier: GPL-2.0
# The package stages' result lines (sourced by run.sh and deb.sh):
# TAP-style "ok N - ..." lines and the counts for the stage's last line.
n=0 pass=0 fail=0 skip=0
ok() { n=$((n + 1)) pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)) fail=$((fail + 1)); echo "not ok $n - $1${2:+ # $2}"; }
skipped() { n=$((n + 1)) skip=$((skip + 1)); echo "ok $n - $1 # SKIP $2"; }
# result NAME STATUS [WHY]
result() { if (($2 == 0)); then ok "$1"; else notok "$1" "${3:-}"; fi; }
