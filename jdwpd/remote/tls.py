"""TLS 1.3 for the remote link, both ends authenticated by the shared secret file.

Python 3.11's ssl has no TLS 1.3 PSK, so the secret is turned into certificates: HKDF-SHA256 of the
32-byte secret gives one Ed25519 key per role (far, near), each with a self-signed certificate; each
end presents its own and trusts exactly the other's.  Whoever holds the secret can make both, nobody
else can make either, and nothing else is trusted (no system CAs, no host names).  Two roles, not one
key: a far side's own certificate played back to it is not a near side's.  `cryptography` (the
optional extra ``remote``) makes the keys and certificates; ssl/OpenSSL does all the cryptography of
the link itself.
"""

from __future__ import annotations

import datetime
import os
import ssl
import tempfile
from typing import TYPE_CHECKING

from jdwpd.usage import UsageError

if TYPE_CHECKING:  # imported where used: only remote debugging needs the package
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

FAR = "far"
NEAR = "near"
# The first byte of any TLS handshake record; a peer that sends anything else is not a TLS client
# and gets no byte from us (not even an alert).
TLS_HANDSHAKE_RECORD = 0x16


class RemoteSetupError(UsageError):
    """This machine cannot make the link's certificates (no `cryptography`)."""


def _role_key(secret: bytes, role: str) -> Ed25519PrivateKey:
    try:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    except ImportError:
        raise RemoteSetupError("remote debugging needs the 'cryptography' package: "
                               "pip install 'jdwpd[remote]'") from None
    seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"jdwpd remote link v1",
                info=f"jdwpd {role} key".encode()).derive(secret)
    return Ed25519PrivateKey.from_private_bytes(seed)


def role_certificate(secret: bytes, role: str) -> tuple[bytes, bytes]:
    """(certificate PEM, private key PEM) of ``role``, the same on every machine for one secret."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.x509.oid import NameOID

    key = _role_key(secret, role)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"jdwpd {role} side")])
    # Fixed dates and serial: the certificate is a function of the secret alone (Ed25519 signs
    # deterministically), and never expires under a link that lives for months.
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1 if role == FAR else 2)
            .not_valid_before(datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC))
            .not_valid_after(datetime.datetime(9999, 12, 31, tzinfo=datetime.UTC))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False, key_agreement=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, None))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def _load_own(ctx: ssl.SSLContext, cert_pem: bytes, key_pem: bytes) -> None:
    # ssl loads a key only from a file: one in a private folder, gone as soon as it is read.
    with tempfile.TemporaryDirectory(prefix="jdwpd-tls-") as d:
        path = os.path.join(d, "own.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key_pem + cert_pem)
        ctx.load_cert_chain(path)


def context(secret: bytes, role: str) -> ssl.SSLContext:
    """The SSLContext of ``role``: far is the TLS server, near the client; TLS 1.3 only, the peer's
    certificate required and checked against the other role's, and only it."""
    server = role == FAR
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server else ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False  # the peer is named by its key, not by a host name
    ctx.verify_mode = ssl.CERT_REQUIRED
    own_cert, own_key = role_certificate(secret, role)
    peer_cert, _ = role_certificate(secret, NEAR if server else FAR)
    _load_own(ctx, own_cert, own_key)
    ctx.load_verify_locations(cadata=peer_cert.decode())
    if server:
        ctx.num_tickets = 0  # no resumption: every connection proves the secret anew
    return ctx


def describe_failure(exc: BaseException) -> str | None:
    """'wrong secret' when exc (or its cause) is TLS refusing the peer's or our certificate."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return "it does not hold our secret"
        if isinstance(seen, ssl.SSLError):
            reason = (seen.reason or str(seen)).lower()
            if any(word in reason for word in ("unknown_ca", "certificate", "bad_certificate", "decrypt",
                                               "handshake_failure")):
                return "it refused our secret"
            return f"TLS failed: {seen.reason or seen}"
        seen = seen.__cause__ or seen.__context__
    return None
