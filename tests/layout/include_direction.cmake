# The rooms' arrows point one way: recorder/, replayer/ and traces/ never
# include tools/ (nor link its libraries), and replayer/ never includes
# recorder/. Run as: cmake -DROOT=<source tree> -P include_direction.cmake
# Fails (a message per offending line) on any such include or link.
if(NOT ROOT)
  message(FATAL_ERROR "include_direction.cmake: pass -DROOT=<source tree>")
endif()

set(rules
  "recorder|tools/"
  "replayer|tools/"
  "traces|tools/"
  "replayer|recorder/")
set(tool_libs "fsreplay_(detect|report|progress|slowfs|wsl1)")
set(bad "")
set(checked 0)

foreach(rule IN LISTS rules)
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 room)
  list(GET parts 1 forbidden)
  file(GLOB_RECURSE sources "${ROOT}/${room}/*.h" "${ROOT}/${room}/*.hpp" "${ROOT}/${room}/*.c"
       "${ROOT}/${room}/*.cc" "${ROOT}/${room}/*.cpp")
  foreach(f IN LISTS sources)
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]${forbidden}")
    foreach(l IN LISTS lines)
      file(RELATIVE_PATH rel "${ROOT}" "${f}")
      string(APPEND bad "  ${rel}: ${l}  (${room}/ must not include ${forbidden})\n")
    endforeach()
  endforeach()
endforeach()

foreach(room recorder replayer traces)
  set(cm "${ROOT}/${room}/CMakeLists.txt")
  if(NOT EXISTS "${cm}")
    continue()
  endif()
  set(pattern "${tool_libs}")
  if(room STREQUAL "replayer")
    set(pattern "(${tool_libs}|fsreplay_recorder)")
  endif()
  file(STRINGS "${cm}" lines REGEX "${pattern}")
  foreach(l IN LISTS lines)
    string(STRIP "${l}" l)
    string(APPEND bad "  ${room}/CMakeLists.txt: ${l}  (${room}/ must not link that library)\n")
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "include_direction.cmake: no sources found under ${ROOT}/{recorder,replayer,traces}: wrong ROOT?")
endif()
if(bad)
  message(FATAL_ERROR "includes or links against the rooms' direction (move the shared code into traces/, "
                      "or pass what the library needs in from the verb):\n${bad}")
endif()
message(STATUS "include direction: ${checked} files checked, none include upwards")
