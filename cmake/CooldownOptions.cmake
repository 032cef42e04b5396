# SPDX-License-Identifier: Apache-2.0
# cooldown_options: what every product target links: language level, warnings,
# the Qt strictness macros and, on request, the sanitizers.
# cooldown_test_options: the same for tests, without the string-cast macros, so
# that test tables can be written with plain literals.
add_library(cooldown_test_options INTERFACE)
target_compile_features(cooldown_test_options INTERFACE cxx_std_17)
set(CMAKE_CXX_EXTENSIONS OFF)
target_compile_definitions(cooldown_test_options INTERFACE
    QT_NO_FOREACH
    QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
    QT_DISABLE_DEPRECATED_BEFORE=0x060400
)

add_library(cooldown_options INTERFACE)
target_link_libraries(cooldown_options INTERFACE cooldown_test_options)
target_compile_definitions(cooldown_options INTERFACE
    QT_NO_CAST_FROM_ASCII
    QT_NO_CAST_TO_ASCII
    QT_NO_CAST_FROM_BYTEARRAY
    QT_NO_URL_CAST_FROM_STRING
)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(cooldown_test_options INTERFACE
        -Wall -Wextra -pedantic
        -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
        -Wimplicit-fallthrough)
    if(COOLDOWN_WARNINGS_AS_ERRORS)
        target_compile_options(cooldown_test_options INTERFACE -Werror)
    endif()
    if(COOLDOWN_SANITIZE)
        target_compile_options(cooldown_test_options INTERFACE
            -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
        target_link_options(cooldown_test_options INTERFACE -fsanitize=address,undefined)
    endif()
endif()
