# ccache, when installed, for every compile. CCACHE_BASEDIR is the source folder, so that ccache
# rewrites the absolute paths under it (include folders in the build tree, our sources) relative to
# the build folder: build folders of the same clone (build/, build-native/, ...) share the objects
# they have in common, and a clone in another folder hits the same cache entries. Without it ccache
# hashes the absolute paths and nothing is shared. A CCACHE_BASEDIR set by the caller wins.
# CCACHE_NOHASHDIR: the sanitizer builds compile with line tables (-g1), which would otherwise put
# the build folder itself in the hash.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
    if(DEFINED ENV{CCACHE_BASEDIR})
        set(sonotype_ccache_basedir "$ENV{CCACHE_BASEDIR}")
    else()
        set(sonotype_ccache_basedir "${CMAKE_SOURCE_DIR}")
    endif()
    set(sonotype_ccache_launcher "${CMAKE_COMMAND}" -E env "CCACHE_BASEDIR=${sonotype_ccache_basedir}" CCACHE_NOHASHDIR=1 "${CCACHE_PROGRAM}")
    set(CMAKE_C_COMPILER_LAUNCHER ${sonotype_ccache_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${sonotype_ccache_launcher})
endif()
