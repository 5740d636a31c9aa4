#!/usr/bin/env bash
# Runs a command against a real Soft-RoCE (rdma_rxe) device inside a small qemu VM.
# The host kernel has no RDMA support, so we boot a stock Debian kernel under TCG
# with a busybox initramfs that chroots into the host's / (read-only, virtio-9p).
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/.." && pwd)
DIR="$REPO/build/softroce-vm"
TIMEOUT=600
PACKAGES=(qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-providers ibverbs-utils
          rdmacm-utils perftest libibverbs-dev librdmacm-dev iproute2)
# Dependencies come from modprobe; crc32_generic is listed by hand because rdma_rxe
# needs it at run time but modules.dep does not say so (rdma link add -> ENOENT).
MODULES=(virtio_pci 9pnet_virtio 9p crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs
         rdma_rxe configfs ib_cm iw_cm rdma_cm rdma_ucm dummy)

usage() {
  cat <<EOF
Usage: scripts/softroce-vm.sh prepare [--dir DIR]
       scripts/softroce-vm.sh run [--dir DIR] [--timeout SECONDS] -- COMMAND...
       scripts/softroce-vm.sh --help

prepare  Install host packages, download the current Debian kernel (linux-image-amd64)
         and build the initramfs, all cached in DIR (default: build/softroce-vm).
run      Prepare if needed, boot a qemu (TCG) VM with Soft-RoCE device rxe0 on lo,
         run COMMAND in the repo root (mounted read-only at its own path, also when
         it lies under /tmp) inside a read-only view of the host's /, print
         its output (stdout and stderr merged) and exit with its exit code.
         A single argument is run as shell script text ('a | b; c'); several arguments
         are run as one quoted command. --timeout covers boot + run (default $TIMEOUT s).
         In the guest /tmp and /run are tmpfs; \$SOFTROCE_OUT is a writable directory
         that is kept on the host as DIR/last-run after the VM exits. GID index 1 is
         ::ffff:127.0.0.1 (RoCE v2). Exit 124: timeout; 125: the VM failed to start or set up.
EOF
}

log() { echo "softroce-vm: $*" >&2; }
die() { log "error: $*"; exit 125; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_logged() { as_root "$@" >>"$DIR/apt.log" 2>&1; }   # apt/dpkg chatter goes to a log

install_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (log: $DIR/apt.log)"
  export DEBIAN_FRONTEND=noninteractive
  # Only refresh the package lists when the cached ones are too old to install from.
  apt_logged timeout 900 apt-get install -y -q --no-install-recommends "${missing[@]}" ||
    { apt_logged timeout 300 apt-get update -q &&
      apt_logged timeout 900 apt-get install -y -q --no-install-recommends "${missing[@]}"; } ||
    { tail -n 20 "$DIR/apt.log" >&2; die "apt-get install failed"; }
}

kernel_pkg() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}'; }

fetch_kernel() {
  [ -s "$DIR/kernel/.kver" ] && return 0
  local pkg dl="$DIR/download" tmp="$DIR/kernel.tmp" kver
  rm -rf "$dl" "$tmp"; mkdir -p "$dl"
  pkg=$(kernel_pkg)
  # The mirror keeps only the newest kernel, so stale lists name a missing .deb: update, retry.
  log "downloading $pkg"
  if [ -z "$pkg" ] || ! (cd "$dl" && apt_logged timeout 600 apt-get download -q "$pkg"); then
    apt_logged timeout 300 apt-get update -q || die "apt-get update failed (see $DIR/apt.log)"
    pkg=$(kernel_pkg); [ -n "$pkg" ] || die "apt-cache names no linux-image-* for linux-image-amd64"
    (cd "$dl" && apt_logged timeout 600 apt-get download -q "$pkg") || die "cannot download $pkg"
  fi
  log "extracting $pkg"
  dpkg -x "$dl"/*.deb "$tmp"
  [ -d "$tmp/lib/modules" ] || ln -s usr/lib "$tmp/lib"   # usr-merged packages
  kver=$(basename "$(find "$tmp/lib/modules/" -mindepth 1 -maxdepth 1 | head -n 1)")
  [ -f "$tmp/boot/vmlinuz-$kver" ] || die "$pkg has no kernel or modules"
  depmod -b "$tmp" "$kver"                                 # the .deb ships no modules.dep
  echo "$kver" > "$tmp/.kver"
  rm -rf "$DIR/kernel" "$dl"; mv "$tmp" "$DIR/kernel"
}

# PID 1 of the guest. Setup errors go to /out/setup.log (when /out is up) and the console.
write_init() {
  cat <<'EOF'
#!/bin/sh
export PATH=/bin
mount -t devtmpfs dev /dev; exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc; mount -t sysfs sys /sys
die() { echo "softroce-init: $*"; [ -w /out ] && echo "$*" >> /out/setup.log; sync; poweroff -f; }
for m in $(cat /etc/modules.order); do insmod "/lib/modules/$m.ko" || die "insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out || die "cannot mount out share"
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144 hostroot /host ||
  die "cannot mount host root"
H=/host
mount -t proc proc $H/proc && mount -t sysfs sys $H/sys && mount -t devtmpfs dev $H/dev &&
  mkdir -p $H/dev/pts $H/dev/shm && mount -t devpts devpts $H/dev/pts &&
  mount -t tmpfs tmpfs $H/dev/shm && mount -t tmpfs tmpfs $H/tmp && mount -t tmpfs tmpfs $H/run &&
  mkdir $H/run/softroce && mount -o bind /out $H/run/softroce || die "cannot set up chroot mounts"
# The repository gets a share of its own at its own path: a checkout under
# /tmp or /run would otherwise be hidden by the tmpfs mounts above.
R=$(cat /out/cwd)
mkdir -p "$H$R" 2>/dev/null
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144 repo "$H$R" ||
  die "cannot mount the repository at $R"
# Autoloaded modules come from the downloaded kernel tree, seen through the host root.
echo /bin/modprobe-chroot > /proc/sys/kernel/modprobe
chroot $H ip link set lo up || die "ip link set lo up failed"
chroot $H rdma link add rxe0 type rxe netdev lo || die "rdma link add rxe0 failed"
echo "command starts at uptime $(cut -d' ' -f1 /proc/uptime) s" >> /out/setup.log
chroot $H /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/tmp LANG=C.UTF-8 TERM=dumb SOFTROCE_OUT=/run/softroce \
  /bin/sh -c 'cd "$1" && exec /bin/bash /run/softroce/cmd' sh "$(cat /out/cwd)" \
  </dev/null >/out/output.log 2>&1
echo $? > /out/rc
echo "command ends at uptime $(cut -d' ' -f1 /proc/uptime) s" >> /out/setup.log
sync; poweroff -f
EOF
}

build_initramfs() {
  local kroot="$DIR/kernel" kver initrd="$DIR/initramfs.cpio.gz" st="$DIR/initramfs.tmp" f name
  kver=$(cat "$kroot/.kver")
  # Rebuild when this script (which holds /init) or the kernel changed.
  [ -s "$initrd" ] && [ "$initrd" -nt "$SELF" ] && [ "$initrd" -nt "$kroot/.kver" ] && return 0
  log "building initramfs for $kver"
  rm -rf "$st"; mkdir -p "$st"/{bin,etc,proc,sys,dev,host,out,lib/modules}
  cp /bin/busybox "$st/bin/busybox"
  for f in $(busybox --list); do [ "$f" = busybox ] || ln -s busybox "$st/bin/$f"; done
  # Dependency order: modprobe prints each module's dependencies before the module itself.
  local order
  order=$(for m in "${MODULES[@]}"; do modprobe -d "$kroot" -S "$kver" --show-depends "$m" ||
            die "module $m not found in $kver"; done | awk '$1 == "insmod" && !seen[$2]++ {print $2}')
  : > "$st/etc/modules.order"
  for f in $order; do
    name=$(basename "$f"); name=${name%%.ko*}
    case "$f" in
      *.ko) cp "$f" "$st/lib/modules/$name.ko" ;;
      *.ko.xz) xz -dc "$f" > "$st/lib/modules/$name.ko" ;;
      *.ko.zst) zstd -qdc "$f" > "$st/lib/modules/$name.ko" ;;
      *.ko.gz) gzip -dc "$f" > "$st/lib/modules/$name.ko" ;;
      *) die "unknown module format: $f" ;;
    esac
    echo "$name" >> "$st/etc/modules.order"
  done
  printf '#!/bin/sh\nexec chroot /host /sbin/modprobe -d %q "$@"\n' "$kroot" > "$st/bin/modprobe-chroot"
  write_init > "$st/init"
  chmod +x "$st/init" "$st/bin/modprobe-chroot"
  (cd "$st" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
  mv "$initrd.tmp" "$initrd"; rm -rf "$st"
}

prepare() {
  mkdir -p "$DIR"
  install_packages
  fetch_kernel
  build_initramfs
}

run_vm() {
  [ $# -gt 0 ] || die "run needs a command after --"
  prepare
  local kver run start qpid tpid="" qrc=0 rc
  kver=$(cat "$DIR/kernel/.kver")
  run=$(mktemp -d "$DIR/run.XXXXXX")
  # The command travels in a file on the writable share, never on the kernel command line.
  if [ $# -eq 1 ]; then printf '%s\n' "$1"; else printf '%q ' "$@"; echo; fi > "$run/cmd"
  printf '%s\n' "$REPO" > "$run/cwd"
  : > "$run/output.log"
  start=$(date +%s.%N)
  timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 1024 \
    -nographic -no-reboot -nic none \
    -kernel "$DIR/kernel/boot/vmlinuz-$kver" -initrd "$DIR/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1" \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev "local,id=repo,path=${REPO//,/,,},security_model=none,readonly=on,multidevs=remap" \
    -device virtio-9p-pci,fsdev=repo,mount_tag=repo \
    -fsdev "local,id=out,path=${run//,/,,},security_model=none" \
    -device virtio-9p-pci,fsdev=out,mount_tag=out \
    </dev/null >"$run/console.log" 2>&1 &
  qpid=$!
  # Kill the VM if we are interrupted; keep the last run's share for inspection.
  # (wait reaps them: timeout forwards the TERM to qemu, which stops at once.)
  trap 'kill "$qpid" ${tpid:-} 2>/dev/null || true; wait 2>/dev/null || true
        rm -rf "$DIR/last-run"; mv -T "$run" "$DIR/last-run"' EXIT
  trap 'log "interrupted: VM stopped"; exit 130' INT TERM
  # Stream the guest's output while it runs (9p writes go straight to the host file).
  # tail runs in the background because bash defers traps until a foreground job ends.
  tail -n +1 -s 0.2 -f --pid="$qpid" "$run/output.log" & tpid=$!
  wait "$tpid" || true
  wait "$qpid" || qrc=$?
  log "VM wall time $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
  if [ -s "$run/rc" ]; then rc=$(cat "$run/rc"); exit "$rc"; fi
  [ -s "$run/setup.log" ] && { log "guest setup log:"; cat "$run/setup.log" >&2; }
  log "last console lines:"; tail -n 20 "$run/console.log" >&2
  [ "$qrc" -eq 124 ] && { log "error: VM timed out after $TIMEOUT s (see --timeout)"; exit 124; }
  die "VM exited (qemu status $qrc) without reporting the command's exit code"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
opts_done=0
while [ $# -gt 0 ] && [ $opts_done -eq 0 ]; do
  case "$1" in
    --dir) DIR=$(realpath -m "${2:?--dir needs a value}"); shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs a value}; shift 2
               [[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "bad --timeout $TIMEOUT" ;;
    --) shift; opts_done=1 ;;
    -h|--help) usage; exit 0 ;;
    *) [ "$cmd" = run ] && die "put the command after --: run [options] -- COMMAND..."
       die "unknown argument: $1" ;;
  esac
done

case "$cmd" in
  prepare) [ $opts_done -eq 0 ] || die "prepare takes no command"; prepare ;;
  run) [ $opts_done -eq 1 ] || die "run needs -- COMMAND..."; run_vm "$@" ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
