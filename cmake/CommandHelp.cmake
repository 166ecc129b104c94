# Writes a help2man include file (cmake/Install.cmake) with a COMMANDS section: each command's own
# --help, as the program prints it, so that the man page lists every command's options too.
# Usage: cmake -DPROGRAM=path -DCOMMANDS=a,b -DOUTPUT=file -P CommandHelp.cmake
string(REPLACE "," ";" commands "${COMMANDS}")
set(text "[COMMANDS]\n")
foreach(command IN LISTS commands)
    execute_process(COMMAND "${PROGRAM}" ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "${PROGRAM} ${command} --help failed (${status})")
    endif()
    # Verbatim in roff: a backslash is \e, and a line starting with . or ' is no request.
    string(REPLACE "\\" "\\e" help "${help}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
    string(APPEND text ".SS \"${command}\"\n.nf\n${help}.fi\n")
endforeach()
file(WRITE "${OUTPUT}" "${text}")
