"""Test certificates: a CA, a server certificate for localhost/127.0.0.1, a client certificate, and a
rogue client certificate signed by another CA."""
import datetime
import ipaddress


def make_certs(tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def make(cn, issuer=None, ca=False, san=None):
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
        b = (x509.CertificateBuilder().subject_name(name)
             .issuer_name(issuer[0].subject if issuer else name).public_key(key.public_key())
             .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if san:
            b = b.add_extension(x509.SubjectAlternativeName(san), critical=False)
        cert = b.sign(issuer[1] if issuer else key, hashes.SHA256())
        paths = tmp_path / f"{cn}.crt", tmp_path / f"{cn}.key"
        paths[0].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        paths[1].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        return cert, key, paths

    ca = make("test-ca", ca=True)
    server = make("localhost", issuer=ca, san=[x509.DNSName("localhost"),
                                               x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    client = make("test-client", issuer=ca)
    other_ca = make("other-ca", ca=True)
    rogue = make("rogue-client", issuer=other_ca)
    return {"ca": ca[2][0], "server": server[2], "client": client[2], "rogue": rogue[2]}
