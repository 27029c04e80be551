"""Finds nvcc: $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, then the PATH."""
import os
import shutil


def find_nvcc():
    for root in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]:
        if root:
            candidate = os.path.join(root, "bin", "nvcc")
            if os.access(candidate, os.X_OK):
                return candidate
    return shutil.which("nvcc")
