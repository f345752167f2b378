# lit configuration for tic's FileCheck tests.
import os
import lit.formats

config.name = "tic"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tc", ".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tic_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.tic_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Diagnostics must not be coloured when captured by FileCheck.
config.environment.pop("CLICOLOR_FORCE", None)

config.substitutions.append(("%tic-opt", os.path.join(config.tic_tools_dir, "tic-opt")))
config.substitutions.append(("%tic", os.path.join(config.tic_tools_dir, "tic")))
config.substitutions.append(("%examples", os.path.join(config.tic_src_root, "examples")))

# Tests that compile and run C drivers: the C/C++ compilers of the build (with
# the sanitizer flags of a sanitizer build), the runtime's headers and its
# static library.
flags = (" " + config.tic_sanitize_flags) if config.tic_sanitize_flags else ""
config.substitutions.append(("%cxx", config.tic_cxx_compiler + flags))
config.substitutions.append(("%cc", config.tic_c_compiler + flags))
config.substitutions.append(
    ("%runtime_include", os.path.join(config.tic_src_root, "runtime", "include")))
config.substitutions.append(
    ("%runtime_static",
     os.path.join(config.tic_obj_root, "lib", "libtic_runtime.a") + " -lpthread -lm"))
