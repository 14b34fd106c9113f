"""Builtins written in the kernel language itself: the ones that need loops or branches
(Poisson sampling, binary search, noise, Euler-angle conversions...). The front end compiles
them like ``@simt.func`` functions at each call; simt/ir/builtins/library.py registers them.
Where Warp's own implementation is Python (warp/_src/math.py) the code here follows it
line for line; where it is C++ (native/rand.h, noise.h) the code follows the C++."""
