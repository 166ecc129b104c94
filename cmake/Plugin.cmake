# The plugin binaries: VST3, LV2 and Standalone on Linux; VST3, AU and Standalone on macOS; VST3 and
# Standalone on Windows. JUCE compiles only the thin format wrappers here: the processor, the GUI
# and the JUCE modules come from our static libraries.
if(APPLE)
    set(SONOTYPE_PLUGIN_FORMATS VST3 AU Standalone)
elseif(WIN32)
    set(SONOTYPE_PLUGIN_FORMATS VST3 Standalone)
else()
    set(SONOTYPE_PLUGIN_FORMATS VST3 LV2 Standalone)
endif()
set(SONOTYPE_LV2_URI "${SONOTYPE_WEBSITE}")

juce_add_plugin(Sonotype
    PRODUCT_NAME "Sonotype"
    VERSION ${PROJECT_VERSION}
    COMPANY_NAME "Sonotype"
    COMPANY_WEBSITE "${SONOTYPE_WEBSITE}"
    COMPANY_EMAIL "sonotype@users.noreply.github.com"
    COMPANY_COPYRIGHT "GPL-3.0-or-later"
    DESCRIPTION "Live audio classification with PyTorch-exact transformer inference"
    BUNDLE_ID "org.sonotype.Sonotype"
    # The app's icon on macOS and Windows (JUCE makes their icon files from it); on Linux the app
    # sets its window's icon itself (gui::appIcon) and the desktop gets it from cmake/Install.cmake.
    ICON_BIG "${CMAKE_SOURCE_DIR}/Resources/desktop/sonotype.svg"
    PLUGIN_MANUFACTURER_CODE Sntp
    PLUGIN_CODE Snt1
    FORMATS ${SONOTYPE_PLUGIN_FORMATS}
    IS_SYNTH FALSE
    NEEDS_MIDI_INPUT FALSE
    NEEDS_MIDI_OUTPUT TRUE
    IS_MIDI_EFFECT FALSE
    EDITOR_WANTS_KEYBOARD_FOCUS TRUE
    VST3_CATEGORIES Fx Analyzer
    AU_MAIN_TYPE kAudioUnitType_Effect
    AU_SANDBOX_SAFE TRUE
    LV2URI "${SONOTYPE_LV2_URI}"
    COPY_PLUGIN_AFTER_BUILD FALSE)

target_sources(Sonotype PRIVATE Source/app/PluginEntry.cpp)
# Only our entry point gets our warnings (JUCE's wrapper sources in this target do not).
get_target_property(sonotype_warning_flags sonotype_warnings INTERFACE_COMPILE_OPTIONS)
set_source_files_properties(Source/app/PluginEntry.cpp PROPERTIES COMPILE_OPTIONS "${sonotype_warning_flags}")
target_compile_definitions(Sonotype PUBLIC
    # Debian's JUCE 7.0.5 sets JucePlugin_LV2URI to the plugin name before LV2URI is read: the URI
    # in the binary and in manifest.ttl would disagree and no LV2 host could load the plugin.
    JucePlugin_LV2URI="${SONOTYPE_LV2_URI}"
    JUCE_VST3_CAN_REPLACE_VST2=0)
target_link_libraries(Sonotype PUBLIC sonotype_gui)
# The standalone app is ours (Source/app/StandaloneApp.cpp): files from the command line, a plain
# word when there is no audio device, no input muting bar, --help and --version answered before
# JUCE starts (its own main), "About Sonotype" in the Options menu.
if(TARGET Sonotype_Standalone)
    target_sources(Sonotype_Standalone PRIVATE Source/app/StandaloneApp.cpp Source/app/X11Connection.cpp)
    target_compile_definitions(Sonotype_Standalone PRIVATE JUCE_USE_CUSTOM_PLUGIN_STANDALONE_APP=1 JUCE_USE_CUSTOM_PLUGIN_STANDALONE_ENTRYPOINT=1)
    target_link_libraries(Sonotype_Standalone PRIVATE sonotype_version)
    set_source_files_properties(Source/app/StandaloneApp.cpp Source/app/X11Connection.cpp PROPERTIES COMPILE_OPTIONS "${sonotype_warning_flags}")
    if(UNIX AND NOT APPLE)
        # Xlib itself (JUCE loads it at run time): the atoms a window manager's close needs (X11Connection.h).
        pkg_check_modules(X11 REQUIRED IMPORTED_TARGET x11)
        target_link_libraries(Sonotype_Standalone PRIVATE PkgConfig::X11)
    endif()
endif()

# The plugin binaries export their entry points only: everything else (our layers, JUCE, Eigen,
# template instances) stays inside, so nothing clashes with a host's or another plugin's symbols
# (lv2lint: "binary exports superfluous globally visible symbols").
function(sonotype_export_only target)
    set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}.exports.map")
    list(JOIN ARGN "; " symbols)
    file(WRITE "${script}" "{\n  global: ${symbols};\n  local: *;\n};\n")
    target_link_options(${target} PRIVATE "LINKER:--version-script=${script}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${script}")
endfunction()
if(UNIX AND NOT APPLE)
    if(TARGET Sonotype_VST3)
        sonotype_export_only(Sonotype_VST3 GetPluginFactory ModuleEntry ModuleExit)
    endif()
    if(TARGET Sonotype_LV2)
        sonotype_export_only(Sonotype_LV2 lv2_descriptor lv2ui_descriptor)
    endif()
endif()

# JUCE 7.0.5's LV2 helper (a POST_BUILD step of Sonotype_LV2 added by juce_add_plugin, so it runs
# before this one) writes float parameter ranges as Turtle integers and no license or plugin class,
# and offers no option for either: cmake/Lv2TurtleFixes.cmake completes dsp.ttl after each link.
if(TARGET Sonotype_LV2)
    add_custom_command(TARGET Sonotype_LV2 POST_BUILD
        COMMAND "${CMAKE_COMMAND}"
            "-DTTL=$<TARGET_FILE_DIR:Sonotype_LV2>/dsp.ttl"
            "-DPLUGIN_URI=${SONOTYPE_LV2_URI}"
            "-DPLUGIN_CLASS=lv2:AnalyserPlugin"
            "-DLICENSE_URI=http://spdx.org/licenses/GPL-3.0-or-later"
            -P "${CMAKE_CURRENT_LIST_DIR}/Lv2TurtleFixes.cmake"
        VERBATIM)
endif()
