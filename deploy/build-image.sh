#!/usr/bin/env bash
# Builds the `pentagrid` container image without pulling anything: the release binary plus
# exactly the shared libraries `ldd` says it loads, on `FROM scratch`, running as uid 10001.
#
#   deploy/build-image.sh [--binary PATH] [--tag TAG]
#
# Builds the release binary first unless --binary is given. Prints the tag and the size.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=""
tag="pentagrid:latest"
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --tag) tag="$2"; shift 2 ;;
        *) echo "usage: deploy/build-image.sh [--binary PATH] [--tag TAG]" >&2; exit 2 ;;
    esac
done
if [ -z "$binary" ]; then
    cargo build --release --locked -p pentagrid >&2
    binary=target/release/pentagrid
fi
[ -x "$binary" ] || { echo "error: $binary is not an executable" >&2; exit 1; }

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
rootfs="$context/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc" "$rootfs/tmp" "$context/data"
chmod 1777 "$rootfs/tmp"
cp "$binary" "$rootfs/usr/local/bin/pentagrid"
strip --strip-debug "$rootfs/usr/local/bin/pentagrid" 2>/dev/null || true

# Every library the dynamic loader resolves, and the loader itself, at the same paths.
libraries="$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)"
[ -n "$libraries" ] || { echo "error: ldd found no libraries in $binary (static binary?)" >&2; }
for library in $libraries; do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
done
# The loader's usual path, when ldd named it by another (merged /usr).
if [ -e /lib64/ld-linux-x86-64.so.2 ] && [ ! -e "$rootfs/lib64/ld-linux-x86-64.so.2" ]; then
    mkdir -p "$rootfs/lib64"
    cp -L /lib64/ld-linux-x86-64.so.2 "$rootfs/lib64/"
fi

cat > "$rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/:/nonexistent
pentagrid:x:10001:10001:pentagrid:/data:/nonexistent
PASSWD
cat > "$rootfs/etc/group" <<'GROUP'
root:x:0:
pentagrid:x:10001:
GROUP
# Names resolve from /etc/hosts (Docker writes it) and then DNS.
echo "hosts: files dns" > "$rootfs/etc/nsswitch.conf"

cp deploy/Dockerfile "$context/Dockerfile"
docker build --quiet --tag "$tag" "$context" >&2
size="$(docker image inspect --format '{{.Size}}' "$tag")"
echo "$tag"
echo "image $tag: $((size / 1024 / 1024)) MiB ($size bytes): pentagrid and $(echo "$libraries" | wc -w) shared libraries" >&2
