"""Side-by-side benchmarks of jdwpd against the reference agent (-agentlib:jdwp).  Run: python -m bench"""
