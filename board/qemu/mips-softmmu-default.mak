# qemu-system-mips for the DIMMnet-1 project: only the dimmnet1 board.
# (Replaces QEMU's configs/devices/mips-softmmu/default.mak.)

# CONFIG_SEMIHOSTING is always required on this architecture
CONFIG_SEMIHOSTING=y

CONFIG_DIMMNET1=y

# target/mips calls into the inter-thread communication unit
# (itc_reconfigure) whatever the board.
CONFIG_MIPS_ITU=y
