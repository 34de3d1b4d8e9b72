"""Assignment: papers given to eligible experts by subfield (SciVer step 2)."""
