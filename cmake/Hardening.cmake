# Hardening of every binary built, as Debian builds its own packages (dpkg-buildflags with
# hardening=+all): libc calls whose buffer sizes the compiler knows are checked (_FORTIFY_SOURCE=2,
# optimized builds only: it needs the optimizer), functions with arrays on the stack get a canary
# (-fstack-protector-strong), and relocations are read-only and bound at load (-z relro -z now).
# None of these depends on the machine that builds (unlike SONOTYPE_NATIVE), so the shipped binaries,
# the tests and the benchmarks all have them. Off in the sanitizer and fuzzing builds: ASan
# intercepts the same libc calls and reports what fortify would.
option(SONOTYPE_HARDENING "Fortified libc calls, stack protector, full RELRO (as Debian's packages)" ON)
if(SONOTYPE_HARDENING AND NOT SONOTYPE_SANITIZE AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    add_compile_options(-fstack-protector-strong $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-D_FORTIFY_SOURCE=2>)
    add_link_options(LINKER:-z,relro LINKER:-z,now)
endif()
