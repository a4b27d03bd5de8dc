#!/usr/bin/env bash
# Builds imagery-server's container image with podman: the release server with every format
# trait (the Swift runtime linked statically, stripped), exactly the shared libraries it loads
# (from ldd, and what librsvg loads at run time), the CA certificates, an unprivileged user
# (65534) and deploy/Containerfile's defaults. Prints the image's size and its largest parts.
#
# Usage: scripts/build-image.sh [IMAGE]        (default imagery-server:latest)
# Needs: swift, podman (apt-get install podman), and the formats' -dev packages
# (apt-get install libwebp-dev libheif-dev libavif-dev libjxl-dev librsvg2-dev libtiff-dev).
# podman runs with --storage-driver vfs, which works where overlay mounts are not allowed.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-imagery-server:latest}
scratch=.build-image
stage="$scratch/context/rootfs"

echo "== release build (AllFormats, static Swift runtime)"
# FoundationNetworking's static archive calls libcurl, which the static runtime does not bring:
# linked by its soname, since Debian's runtime package has no unversioned libcurl.so.
swift build -c release --product imagery-server --traits AllFormats --static-swift-stdlib -Xlinker -l:libcurl.so.4 --scratch-path "$scratch"
binary="$scratch/release/imagery-server"

echo "== staging the root filesystem"
rm -rf "$scratch/context"
mkdir -p "$stage"/{etc/ssl/certs,etc/imagery-server,etc/fonts,tmp,var/cache/imagery-server,usr/share/fonts/truetype/dejavu}
cp "$binary" "$stage/imagery-server"
strip "$stage/imagery-server"

# Every shared library the server loads, at the path the loader looks for it.
copy_library() {
    local path=$1
    [ -e "$stage$path" ] && return
    mkdir -p "$stage$(dirname "$path")"
    cp -L "$path" "$stage$path"
}
while read -r library; do copy_library "$library"; done < <(ldd "$binary" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }')

# What loads at run time, which ldd does not list: librsvg draws text through fontconfig, which
# needs its configuration and one font family; gdk-pixbuf's PNG and JPEG loaders are built
# into it in Debian, so no loader module is shipped (an embedded image of another format fails).
if [ -d /etc/fonts ]; then cp -r /etc/fonts/. "$stage/etc/fonts/"; fi
for font in DejaVuSans.ttf DejaVuSans-Bold.ttf; do
    [ -e "/usr/share/fonts/truetype/dejavu/$font" ] && cp "/usr/share/fonts/truetype/dejavu/$font" "$stage/usr/share/fonts/truetype/dejavu/"
done

cp /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/"
printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
# Listening on every interface at 8080, as imgproxy's image does; an operator's environment
# or flags win over this file.
printf '{"host": "0.0.0.0", "port": 8080}\n' > "$stage/etc/imagery-server/image.json"
chmod 1777 "$stage/tmp"
chown 65534:65534 "$stage/var/cache/imagery-server"

echo "== podman build"
cp deploy/Containerfile "$scratch/context/Containerfile"
podman --storage-driver vfs build --format docker -t "$image" "$scratch/context"

echo "== size"
bytes=$(podman --storage-driver vfs image inspect --format '{{.Size}}' "$image")
echo "image $image: $((bytes / 1000000)) MB uncompressed (goal: at most 120 MB)"
echo "largest parts:"
(cd "$stage" && du -ak . | sort -rn | awk '$2 !~ /^\.$/' | grep -v '/$' | head -25 | awk '{ printf "  %8.1f MB  %s\n", $1 / 1000, $2 }')
