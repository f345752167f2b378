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
