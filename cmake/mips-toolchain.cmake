# Cross toolchain for the Martini firmware: Debian's mips-linux-gnu gcc used
# freestanding (no Linux, no PIC, soft-float). DN1_CPU picks the CPU port:
# 4kc (QEMU's board) or r3000 (the Martini chip's own core).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR mips)
set(CMAKE_C_COMPILER mips-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER mips-linux-gnu-gcc)
set(CMAKE_OBJCOPY mips-linux-gnu-objcopy CACHE FILEPATH "objcopy for MIPS")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

if(NOT DEFINED DN1_CPU)
  set(DN1_CPU 4kc)
endif()
if(DN1_CPU STREQUAL "4kc")
  set(DN1_MARCH "-march=4kc")
elseif(DN1_CPU STREQUAL "r3000")
  set(DN1_MARCH "-march=r3000")
else()
  message(FATAL_ERROR "DN1_CPU must be 4kc or r3000, not '${DN1_CPU}'")
endif()

set(DN1_CPU_FLAGS "-EB ${DN1_MARCH} -msoft-float -mno-abicalls -fno-pic -G0")
set(CMAKE_C_FLAGS_INIT "${DN1_CPU_FLAGS} -ffreestanding -fno-builtin-printf")
set(CMAKE_ASM_FLAGS_INIT "${DN1_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${DN1_CPU_FLAGS} -nostdlib -static -no-pie -Wl,--build-id=none")
