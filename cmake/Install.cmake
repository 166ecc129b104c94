# Installing Sonotype as software: `cmake --install build --prefix P` (and the Debian package,
# cmake/Packaging.cmake, which installs the same tree under /usr). docs/INSTALL.md lists the layout:
#   bin/sonotype                       the command-line tool
#   bin/sonotype-app                   the standalone app (the CLI owns the name `sonotype`)
#   lib/vst3/Sonotype.vst3             the VST3 bundle, where Linux hosts look (/usr/lib/vst3)
#   lib/lv2/Sonotype.lv2               the LV2 bundle, where Linux hosts look (/usr/lib/lv2)
#   share/applications/sonotype.desktop, share/icons/hicolor/*/apps/sonotype.{svg,png}
#   share/man/man1/sonotype.1.gz, sonotype-app.1.gz   made by help2man from the programs' own --help
#   share/doc/sonotype/copyright, changelog.gz
# The plugin bundles go to lib/, not GNUInstallDirs' multiarch libdir (lib/x86_64-linux-gnu): hosts
# search /usr/lib/vst3 and /usr/lib/lv2 only.
include(GNUInstallDirs)

find_program(SONOTYPE_HELP2MAN help2man REQUIRED)
find_program(SONOTYPE_RSVG_CONVERT rsvg-convert REQUIRED)
find_program(SONOTYPE_GZIP gzip REQUIRED)

set(SONOTYPE_DOC_DIR "${CMAKE_INSTALL_DATADIR}/doc/sonotype")
set(SONOTYPE_DESKTOP_DIR "${CMAKE_SOURCE_DIR}/Resources/desktop")
set(SONOTYPE_INSTALL_STAGING "${CMAKE_BINARY_DIR}/install-files")

# ----- the programs --------------------------------------------------------------------------------
install(TARGETS sonotype RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(TARGET Sonotype_Standalone)
    install(PROGRAMS "$<TARGET_FILE:Sonotype_Standalone>" DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME sonotype-app)
endif()

# ----- the plugin bundles, whole -------------------------------------------------------------------
# Files of 644 in both, the plugins' libraries too: a shared library is not executable (Debian's
# policy; dh_fixperms does the same), and hosts dlopen() it.
foreach(format IN ITEMS VST3 LV2)
    if(TARGET Sonotype_${format})
        string(TOLOWER ${format} folder)
        install(DIRECTORY "$<GENEX_EVAL:$<TARGET_PROPERTY:Sonotype_${format},JUCE_PLUGIN_ARTEFACT_FILE>>" DESTINATION lib/${folder}
            FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    endif()
endforeach()

# install(PROGRAMS) and install(DIRECTORY) are not stripped by `cmake --install --strip` (only
# install(TARGETS) is, and with the compiler's notes left): strip them all here the way Debian's
# dh_strip does, when a strip was asked for. The symbols go (the plugins export only their entry
# points anyway, cmake/Plugin.cmake).
install(CODE "
if(CMAKE_INSTALL_DO_STRIP)
    set(root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
    file(GLOB_RECURSE binaries \"\${root}/lib/vst3/Sonotype.vst3/*.so\" \"\${root}/lib/lv2/Sonotype.lv2/*.so\")
    foreach(program IN ITEMS sonotype sonotype-app)
        if(EXISTS \"\${root}/${CMAKE_INSTALL_BINDIR}/\${program}\")
            list(APPEND binaries \"\${root}/${CMAKE_INSTALL_BINDIR}/\${program}\")
        endif()
    endforeach()
    foreach(binary IN LISTS binaries)
        execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded --remove-section=.comment --remove-section=.note \"\${binary}\"
            COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
endif()")

# ----- desktop entry and icon ----------------------------------------------------------------------
# The icon is drawn once, as SVG (Resources/desktop/sonotype.svg); the PNG sizes desktops without an
# SVG loader use are rendered from it at build time.
set(sonotype_icon_svg "${SONOTYPE_DESKTOP_DIR}/sonotype.svg")
set(sonotype_icon_pngs)
foreach(size IN ITEMS 16 22 24 32 48 64 128 256)
    set(png "${SONOTYPE_INSTALL_STAGING}/icons/${size}x${size}/sonotype.png")
    add_custom_command(OUTPUT "${png}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${SONOTYPE_INSTALL_STAGING}/icons/${size}x${size}"
        COMMAND "${SONOTYPE_RSVG_CONVERT}" --width ${size} --height ${size} --output "${png}" "${sonotype_icon_svg}"
        DEPENDS "${sonotype_icon_svg}"
        COMMENT "Rendering the ${size} px icon"
        VERBATIM)
    list(APPEND sonotype_icon_pngs "${png}")
    install(FILES "${png}" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps")
endforeach()
install(FILES "${sonotype_icon_svg}" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
install(FILES "${SONOTYPE_DESKTOP_DIR}/sonotype.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")

# ----- man pages, from the programs' own --help and --version ---------------------------------------
# help2man runs the freshly built program; the app answers --help and --version before JUCE starts
# (Source/app/StandaloneApp.cpp), so no display is needed. Compressed, as Debian's policy asks.
function(sonotype_man_page target program_name description)
    set(page "${SONOTYPE_INSTALL_STAGING}/man/${program_name}.1")
    set(includes --include "${SONOTYPE_DESKTOP_DIR}/${program_name}.h2m")
    set(commands)
    if(ARGN) # the program's commands: their own --help, as a COMMANDS section
        set(command_help "${SONOTYPE_INSTALL_STAGING}/man/${program_name}-commands.h2m")
        list(JOIN ARGN "," command_names)
        set(commands COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=$<TARGET_FILE:${target}>" "-DCOMMANDS=${command_names}" "-DOUTPUT=${command_help}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CommandHelp.cmake")
        list(APPEND includes --include "${command_help}")
    endif()
    add_custom_command(OUTPUT "${page}.gz"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${SONOTYPE_INSTALL_STAGING}/man"
        ${commands}
        COMMAND "${SONOTYPE_HELP2MAN}" --no-info --no-discard-stderr --section 1 --name "${description}" ${includes}
            --output "${page}" "$<TARGET_FILE:${target}>"
        COMMAND "${SONOTYPE_GZIP}" -9 -n -f "${page}"
        DEPENDS ${target} "${SONOTYPE_DESKTOP_DIR}/${program_name}.h2m" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CommandHelp.cmake"
        COMMENT "Writing the man page ${program_name}(1) with help2man"
        VERBATIM)
    set(sonotype_man_pages_list ${sonotype_man_pages_list} "${page}.gz" PARENT_SCOPE)
    install(FILES "${page}.gz" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
endfunction()
set(sonotype_man_pages_list)
sonotype_man_page(sonotype sonotype "classify audio, learn classes from examples, run and inspect model files"
    classify learn run-model inspect features)
if(TARGET Sonotype_Standalone)
    sonotype_man_page(Sonotype_Standalone sonotype-app "the Sonotype app: live and file audio classification, teaching, MIDI")
endif()

# ----- license and changelog -----------------------------------------------------------------------
# The changelog Debian asks of every package: one entry for this version, dated from
# SOURCE_DATE_EPOCH when set (reproducible builds), else the configure time.
string(TIMESTAMP sonotype_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file("${SONOTYPE_DESKTOP_DIR}/changelog.in" "${SONOTYPE_INSTALL_STAGING}/changelog" @ONLY)
add_custom_command(OUTPUT "${SONOTYPE_INSTALL_STAGING}/changelog.gz"
    COMMAND "${SONOTYPE_GZIP}" -9 -n -k -f "${SONOTYPE_INSTALL_STAGING}/changelog"
    DEPENDS "${SONOTYPE_INSTALL_STAGING}/changelog"
    VERBATIM)
install(FILES "${SONOTYPE_DESKTOP_DIR}/copyright" "${SONOTYPE_INSTALL_STAGING}/changelog.gz" DESTINATION "${SONOTYPE_DOC_DIR}")

# Everything installed is made by `cmake --build` (ALL), so that `cmake --install` after a build
# finds it.
add_custom_target(sonotype_install_files ALL DEPENDS ${sonotype_icon_pngs} ${sonotype_man_pages_list} "${SONOTYPE_INSTALL_STAGING}/changelog.gz")
