#!/usr/bin/env bash
# Makes sure the programs the test suite needs besides Go are installed:
# wat2wasm (Debian package wabt) assembles the WAT example plugin, protoc
# (Debian package protobuf-compiler) checks that the generated subprocess
# plugin protocol is current, bwrap (Debian package bubblewrap) is what
# the sandbox's containment is compared with, node and npm (nodejs,
# npm) build the AssemblyScript example and run Extism's JavaScript host,
# and chromium (Debian package chromium) runs the console's browser test,
# whose Japanese pages need a Japanese font (fonts-ipafont-gothic).
# initdb and postgres (postgresql) run the throwaway PostgreSQL clusters of
# the fleet's tests; no system cluster is made for them. musl-gcc
# (musl-tools), else cc (gcc) with a static C library (libc6-dev), builds
# talon-sandbox, the sandbox helper in C, for make build and the sandbox's
# tests; musl's start-up costs a spawn a fraction of glibc's.
# Missing ones are installed with apt-get when this runs as root; otherwise
# the script says what to install and fails.
set -euo pipefail

need=()
command -v wat2wasm >/dev/null 2>&1 || need+=(wabt)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
{ command -v fc-list >/dev/null 2>&1 && fc-list :lang=ja | grep -q .; } || need+=(fonts-ipafont-gothic)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
command -v cc >/dev/null 2>&1 || need+=(gcc)
compgen -G '/usr/lib/*/libc.a' >/dev/null || need+=(libc6-dev)
command -v musl-gcc >/dev/null 2>&1 || need+=(musl-tools)
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing ${need[*]} with apt-get" >&2
	apt-get update -qq
	if [[ " ${need[*]} " == *" postgresql "* ]] && [ ! -e /etc/postgresql-common/createcluster.conf ]; then
		mkdir -p /etc/postgresql-common
		echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${need[@]}" >/dev/null
	exit 0
fi
echo "talon's tests need these Debian packages: ${need[*]}" >&2
echo "install them (sudo apt-get install ${need[*]}) and run make test again" >&2
exit 1
