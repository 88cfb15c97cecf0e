"""agent/smap.c parses SourceDebugExtension texts that come from the debuggee's class files: any bytes,
under ASan/UBSan, without a fault; and all or nothing (a text cut anywhere before "*E" is no SMAP, as the
reference's parser judges it: tests/differential/test_step_strata.py compares the steps themselves)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JAVA_INCLUDE = Path("/usr/lib/jvm/java-17-openjdk-amd64/include")
SMAPS = [
    "SMAP\nStrata.java\nFoo\n*S Foo\n*F\n+ 1 Foo.foo\ndir/Foo.foo\n*L\n1#1,1:9,3\n2:13\n3,1:14,2\n10:26\n*S Bar\n"
    "*F\n1 Bar.bar\n2 Other.bar\n*L\n1#1,3:9\r\n3#2:12\r\n4,2:13\n20,3:25,2\n*V\nvendor\n*E\n",
    "SMAP\r\nA.kt\r\nKotlin\r\n*S Kotlin\r\n*F\r\n+ 1 A.kt\r\nA\r\n+ 2 I.kt\r\nIKt\r\n*L\r\n1#1,30:1\r\n5#2,2:31\r\n"
    "*S KotlinDebug\r\n*F\r\n+ 1 A.kt\r\nA\r\n*L\r\n31#1,2:7\r\n*E",
    "SMAP\nX.java\nAux\n*F\n1 a.aux\n*L\n5,3:1,2\n0,0:3,0\n"
    "4294967296#99999999999,2147483647:2147483647,2147483647\n*E\n",
]
ALPHABET = "*SFLEVOC#,:+ \t\r\n0123456789-" + "abcXYZ"


def _includes() -> list[str]:
    home = JAVA_INCLUDE
    if not (home / "jvmti.h").is_file():
        javac = shutil.which("javac")
        home = Path(javac).resolve().parent.parent / "include" if javac else home
    return [f"-I{home}", f"-I{home / 'linux'}", f"-I{ROOT / 'agent'}"]


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    exe = tmp_path_factory.mktemp("smap") / "smap_fuzz"
    build = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-g",
                            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", *_includes(), "-o",
                            str(exe), str(ROOT / "tests/agent/c/smap_fuzz.c"), str(ROOT / "agent/smap.c")],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    return exe


def _run(exe: Path, texts: list[str]) -> list[str]:
    data = "\0".join(t.replace("\0", "") for t in texts).encode("latin-1")
    run = subprocess.run([str(exe)], input=data, capture_output=True, timeout=120)
    out = run.stdout.decode("latin-1").splitlines()
    assert run.returncode == 0 and out[-1:] == ["OK"], run.stderr.decode("latin-1")[-3000:]
    assert len(out) == len(texts) + 1
    return out[:-1]


def _mutants(rng: random.Random, text: str, n: int) -> list[str]:
    out = []
    for _ in range(n):
        chars = list(text)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(chars) + 1)
            op = rng.random()
            if op < 0.4 and chars:
                chars[min(at, len(chars) - 1)] = rng.choice(ALPHABET)
            elif op < 0.7:
                chars.insert(at, rng.choice(ALPHABET) * rng.choice([1, 1, 2, 12]))
            elif chars:
                del chars[min(at, len(chars) - 1):min(at, len(chars) - 1) + rng.randint(1, 8)]
        out.append("".join(chars))
    return out


def test_every_cut_before_the_end_is_no_smap(fuzzer):
    for text in SMAPS:
        end = text.index("*E") + 2
        results = _run(fuzzer, [text[:i] for i in range(end + 1)] + [text])
        assert all(r == "none" for r in results[:end]), [text[:i] for i, r in enumerate(results[:end]) if r != "none"]
        assert results[end].startswith("SMAP") and results[-1].startswith("SMAP")


def test_mutated_and_random_texts_never_fault(fuzzer):
    rng = random.Random(45)
    texts = [m for text in SMAPS for m in _mutants(rng, text, 700)]
    texts += ["SMAP\n" + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 300))) for _ in range(500)]
    texts += ["".join(chr(rng.randint(1, 255)) for _ in range(rng.randint(0, 200))) for _ in range(200)]
    results = _run(fuzzer, texts)
    assert sum(r.startswith("SMAP") for r in results) > 100  # the mutants reach conversion, not only refusal


def test_conversion_of_a_known_smap(fuzzer):
    """The fixed table (Java line (i * 7) % 90 - 5 at location 3i) converted by SMAPS[0]'s Foo, worked out
    here by the rule: each entry's first range maps it (none: dropped); a repeat of the last kept line
    joins it; stratum lines are file << 16 | line."""
    foo = [(9, 11, 3, 1, 1), (13, 13, 1, 2, 1), (14, 15, 2, 3, 1), (26, 26, 1, 10, 1)]  # Java range, step, first, file
    want, last = [], 0
    for i in range(160):
        java = (i * 7) % 90 - 5
        for first_java, last_java, step, first, file in foo:
            if first_java <= java <= last_java:
                line = first + (java - first_java) // step + (file << 16)
                if line != last:
                    want.append(f"{line}@{3 * i}")
                    last = line
                break
    (result,) = _run(fuzzer, [SMAPS[0]])
    by_stratum = {part.split(":")[0]: part.split(":")[1] for part in result.split(" |")[1:]}
    assert by_stratum["Foo"] == " ".join([str(len(want)), *want[:12]])
    # No stratum set, one the SMAP lacks, "": its default (Foo); Java: unchanged.
    assert by_stratum["-"] == by_stratum["x"] == by_stratum[""] == by_stratum["Foo"]
    assert by_stratum["Java"].startswith("160 -5@0 2@3 9@6 16@9")
