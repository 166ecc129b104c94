# Warnings are errors in our own code; link this INTERFACE target PRIVATEly into each of our targets
# (third-party headers come in as SYSTEM includes and stay quiet).
add_library(sonotype_warnings INTERFACE)
target_compile_options(sonotype_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Werror
    # GCC 12 at -O3 reports false positives inside libstdc++'s own vector/string code
    # (GCC bugs 105329, 105651, 106199); they say nothing about our code.
    $<$<CXX_COMPILER_ID:GNU>:-Wno-array-bounds -Wno-restrict -Wno-stringop-overflow -Wno-stringop-overread>)
