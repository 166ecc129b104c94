# Run after JUCE's juce_lv2_helper has written the LV2 bundle's dsp.ttl (a POST_BUILD step of
# Sonotype_LV2, see cmake/Plugin.cmake): completes what JUCE 7.0.5 cannot be told to write.
#   cmake -DTTL=<bundle>/dsp.ttl -DPLUGIN_URI=<uri> -DPLUGIN_CLASS=lv2:AnalyserPlugin
#         -DLICENSE_URI=<uri> -P Lv2TurtleFixes.cmake
# - Parameter ranges: JUCE prints whole numbers as Turtle integers ("lv2:maximum 1"), although the
#   parameters are declared rdfs:range atom:Float; they become decimals ("1.0"). Same for the
#   rdf:value of scale points.
# - The plugin gets a class besides lv2:Plugin and a doap:license.
# - The maintainer's foaf:mbox: JUCE writes the bare address ("<name@host>"), a relative IRI that
#   hosts resolve against the bundle (lv2info showed file:///.../name@host); it becomes mailto:.
# Idempotent: running it again on a fixed file changes nothing.
foreach(variable TTL PLUGIN_URI PLUGIN_CLASS LICENSE_URI)
    if(NOT DEFINED ${variable} OR "${${variable}}" STREQUAL "")
        message(FATAL_ERROR "Lv2TurtleFixes.cmake: ${variable} is not set")
    endif()
endforeach()

file(READ "${TTL}" text)
set(original "${text}")

# A whole number (optionally negative) right before the end of a statement or of a line.
string(REGEX REPLACE "((lv2:default|lv2:minimum|lv2:maximum|rdf:value)[ \t]+-?[0-9]+)([ \t]*(;|\\.\n|\n))" "\\1.0\\3" text "${text}")

# An address without a scheme (no ':' before the '@') gets "mailto:".
string(REGEX REPLACE "(foaf:mbox[ \t]+<)([^:>]+@[^>]+>)" "\\1mailto:\\2" text "${text}")

set(subject "<${PLUGIN_URI}>")
string(FIND "${text}" "${subject}\n" at)
if(at EQUAL -1)
    message(FATAL_ERROR "Lv2TurtleFixes.cmake: ${TTL} does not describe ${subject}")
endif()
string(FIND "${text}" "doap:license" has_license)
if(has_license EQUAL -1)
    # JUCE writes "\ta lv2:Plugin ;" as the first type of the plugin subject (or lv2:InstrumentPlugin).
    string(REPLACE "\ta lv2:Plugin ;\n" "\ta lv2:Plugin , ${PLUGIN_CLASS} ;\n\tdoap:license <${LICENSE_URI}> ;\n" text "${text}")
    string(FIND "${text}" "doap:license" has_license)
    if(has_license EQUAL -1)
        message(FATAL_ERROR "Lv2TurtleFixes.cmake: no \"a lv2:Plugin ;\" line in ${TTL} (has JUCE's output changed?)")
    endif()
endif()

if(NOT text STREQUAL original)
    file(WRITE "${TTL}" "${text}")
endif()
