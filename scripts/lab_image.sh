#!/bin/sh
# scripts/lab_image.sh NAME BUILD SAN - build the image of lab NAME: the
# sources with docs/labs/NAME.patch applied (a bug planted for a lab, which
# the kernel's own sources never carry), in BUILD/lab-NAME/, its image
# BUILD/lab-NAME/BUILD/baton.iso. Called by make (LAB=NAME, and make test
# for every lab) once BUILD's own image is built.
#
# Incremental: the copy keeps the build's objects and every file's time
# (cp -a), so only the files the patch changes are newer than their
# objects: make compiles those and links again. BUILD must be a relative
# path (the objects' dependency files name it).
#
# A patch that no longer applies exactly (no fuzz) fails, saying so.
set -eu

name=$1 build=$2 san=$3
patch=docs/labs/$name.patch
dir=$build/lab-$name

if [ ! -f "$patch" ]; then
	echo "lab_image: no lab '$name': the labs are $(ls docs/labs/*.patch |
		sed 's|docs/labs/||; s|\.patch$||' | tr '\n' ' ')" >&2
	exit 2
fi
case "$build" in
/*) echo "lab_image: BUILD=$build: the labs' images need a relative build directory" >&2
	exit 2 ;;
esac
rm -rf "$dir"
mkdir -p "$dir/$build"
cp -a Makefile linker.ld arch kernel lib drivers scripts tests "$dir/"
cp -a "$build/obj" "$dir/$build/"
if ! patch -d "$dir" -p1 -F0 -s --forward --no-backup-if-mismatch -r - < "$patch"; then
	echo "lab_image: $patch no longer applies to the sources: bring it up to date" \
		"with them (docs/labs.md, \"The labs' images\")" >&2
	exit 1
fi
exec ${MAKE:-make} -C "$dir" --no-print-directory SAN="$san" BUILD="$build" iso
