#!/bin/sh
# scripts/deps.sh [bench] - make sure the tools baton needs are installed.
#
# With "bench", also what `make bench` alone needs: matplotlib for the
# plots (scripts/bench_plots.py). `make test` never needs it.
#
# Checks for each tool; if any is missing, installs the Debian/Ubuntu
# packages with apt-get when running as root (or through sudo without a
# password), and otherwise prints the exact command to run and fails.
set -u

PACKAGES="qemu-system-x86 grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools ovmf gcc binutils make python3 clang-format-14 patch"

missing=""
need() { # need COMMAND-OR-PATH PACKAGE
	case " $missing " in *" $2 "*) return ;; esac
	case "$1" in
	/*) [ -e "$1" ] || missing="$missing $2" ;;
	*) command -v "$1" >/dev/null 2>&1 || missing="$missing $2" ;;
	esac
}
need qemu-system-x86_64 qemu-system-x86
need grub-mkrescue grub-common
need /usr/lib/grub/i386-pc/multiboot2.mod grub-pc-bin
need /usr/lib/grub/x86_64-efi/multiboot2.mod grub-efi-amd64-bin	# UEFI half of the ISO
need /usr/share/OVMF/OVMF_CODE_4M.fd ovmf	# make run FIRMWARE=uefi, the uefi-* boots
need /usr/share/OVMF/OVMF_VARS_4M.fd ovmf
need xorriso xorriso
need mformat mtools
need gcc gcc
need ld binutils
need make make
need python3 python3
need clang-format-14 clang-format-14	# tests/checks/check_format.py
need patch patch	# the labs' images (scripts/lab_image.sh)
if [ "${1:-}" = bench ]; then
	PACKAGES="$PACKAGES python3-matplotlib"
	# Debian's python3 (/usr/bin), the one its python3-matplotlib serves
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || missing="$missing python3-matplotlib"
fi

[ -z "$missing" ] && exit 0

echo "baton: missing packages:$missing"
if [ "$(id -u)" = 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo"
else
	echo "baton: install them with:"
	echo "    sudo apt-get update && sudo apt-get install -y $PACKAGES"
	exit 1
fi
echo "baton: installing with apt-get ..."
$SUDO apt-get update -qq >/dev/null &&
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		$PACKAGES >/dev/null || {
	echo "baton: apt-get failed; run: sudo apt-get install -y $PACKAGES" >&2
	exit 1
}
