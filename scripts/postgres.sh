#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: Debian's packages, a cluster made by initdb in a
# temporary folder, listening on loopback only, never a system service.
#
#   bash scripts/postgres.sh start DIR   # prints the admin URL on stdout
#   bash scripts/postgres.sh stop DIR
#
# The server refuses to run as root, so as root the cluster belongs to the `postgres` user the
# Debian package creates.
set -euo pipefail

command=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}

find_bindir() {
    local candidate
    for candidate in /usr/lib/postgresql/*/bin; do
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"
        fi
    done | sort -V | tail -n 1
}

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        # from /, since the caller's folder may be one the postgres user cannot enter
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local bindir
    bindir=$(find_bindir)
    if [[ -z "$bindir" ]]; then
        echo "== installing PostgreSQL from the distribution's packages" >&2
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            postgresql >&2
        # the package may start a system cluster; the tests use their own
        $sudo service postgresql stop >/dev/null 2>&1 || true
        bindir=$(find_bindir)
    fi
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then
        chown postgres: "$dir"
    fi
    local port
    port=$(free_port)
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 \
        --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    # fsync off: a test cluster is thrown away, and durability is SQLite's test, not this one's
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" \
        start >&2 || {
        cat "$dir/server.log" >&2
        exit 1
    }
    echo "$bindir" >"$dir/bindir"
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
}

stop() {
    [[ -f "$dir/bindir" ]] || return 0
    as_owner "$(cat "$dir/bindir")/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    rm -rf "$dir"
}

case "$command" in
start) start ;;
stop) stop ;;
*)
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
