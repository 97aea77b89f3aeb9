#!/usr/bin/env bash
# Builds Citus from the vendored source (../shared/vendor/citus, or CITUS_SOURCE) and installs it into
# Debian's PostgreSQL 15, when it is not there yet. Run as root; about 4 minutes on 2 cores.
set -euo pipefail
source_dir=${CITUS_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/vendor/citus}
if [ -f /usr/lib/postgresql/15/lib/citus.so ]; then exit 0; fi
[ -f "$source_dir/citus-13.2.2.tar.gz" ] || { echo "no Citus source at $source_dir (set CITUS_SOURCE)" >&2; exit 1; }
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 postgresql-server-dev-15 libcurl4-openssl-dev \
  liblz4-dev libzstd-dev libkrb5-dev libselinux1-dev libxslt1-dev libpam0g-dev libssl-dev >/dev/null
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
tar xzf "$source_dir/citus-13.2.2.tar.gz" -C "$build"
cd "$build"/citus-13.2.2
# Debian's recent PostgreSQL 15 minors export have_createdb_privilege(), which Citus also defines.
patch -p1 -s < "$source_dir/pg15-minor-have-createdb-privilege.patch"
./configure -q >/dev/null
make -s -j2 >/dev/null 2>&1
make -s install >/dev/null
