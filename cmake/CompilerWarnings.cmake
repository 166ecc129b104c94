# Warnings are errors in our own code; link this INTERFACE target PRIVATEly into each of our targets
# (third-party headers come in as SYSTEM includes and stay quiet).
add_library(sonotype_warnings INTERFACE)
target_compile_options(sonotype_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference -Werror)
