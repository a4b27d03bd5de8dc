#!/usr/bin/env bash
# Builds imagery-server's container image with podman: the release server with every format
# trait (the Swift runtime linked statically, stripped), exactly the shared libraries it loads
# (from ldd, and what librsvg loads at run time), the CA certificates, an unprivileged user
# (65534) and deploy/Containerfile's defaults. Prints the image's size and its largest parts.
#
# Usage: scripts/build-image.sh [IMAGE]        (default imagery-server:latest)
# Needs: swift, podman (apt-get install podman), and the formats' -dev packages
# (apt-get install libwebp-dev libheif-dev libavif-dev libjxl-dev librsvg2-dev libtiff-dev), and the
# font, its configuration and the CA certificates the image carries (fonts-dejavu-core
# fontconfig-config ca-certificates, already on most machines).
# podman runs with --storage-driver vfs, which works where overlay mounts are not allowed.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-imagery-server:latest}
scratch=.build-image
stage="$scratch/context/rootfs"

echo "== release build (AllFormats and OpenTelemetry, static Swift runtime)"
# FoundationNetworking's static archive asks the linker for -lcurl, which needs the unversioned
# libcurl.so of a -dev package: a directory of our own gives it the runtime's soname instead.
curl=$(ldconfig -p | awk '/libcurl\.so\.4 .*x86-64|libcurl\.so\.4 .*aarch64/ && !/gnutls|nss/ { print $NF; exit }')
[ -n "$curl" ] || { echo "libcurl4 is missing (apt-get install libcurl4)" >&2; exit 1; }
mkdir -p "$scratch/link"
ln -sf "$curl" "$scratch/link/libcurl.so"
swift build -c release --product imagery-server --traits AllFormats,OpenTelemetry --static-swift-stdlib -Xlinker -L"$PWD/$scratch/link" --scratch-path "$scratch"
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
# Without them librsvg draws no text at all, so their absence stops the build.
for needed in /etc/fonts/fonts.conf /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /etc/ssl/certs/ca-certificates.crt; do
    [ -e "$needed" ] || { echo "$needed is missing (apt-get install fontconfig-config fonts-dejavu-core ca-certificates)" >&2; exit 1; }
done
cp -r /etc/fonts/. "$stage/etc/fonts/"
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf "$stage/usr/share/fonts/truetype/dejavu/"

cp /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/"
printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
# Listening on every interface at 8080, as imgproxy's image does; an operator's environment
# or flags win over this file.
cp deploy/image.json "$stage/etc/imagery-server/image.json"
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
