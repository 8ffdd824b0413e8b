/* kernel/version.h - the release, printed in the boot banner. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H
#define BATON_VERSION "0.1"
#endif
