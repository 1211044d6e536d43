// A self-signed certificate for receiver.test (P-256, valid until 2126) and its key, made for these tests with
//   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 36500 -nodes -subj /CN=receiver.test \
//     -addext subjectAltName=DNS:receiver.test
// Nothing trusts it: it guards no secret, and it shows that the egress verifies certificates.

export const RECEIVER_TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgLq+GoXYSupD6Pmok
++Cat/Yyq1llePpxvWfvYXJ8Y1ahRANCAASAwPLn/M7qzykAiFXgS26FKU2EQVYg
I32wRSC03QL7LOxp9oO1xLKzl7i8L4SskWEGr3x1SjO47Y9EbXiGBOz3
-----END PRIVATE KEY-----
`;

export const RECEIVER_TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBoTCCAUegAwIBAgIUZ4g+xEAJfOw691AUrQkG+f1SO0owCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDAgFw0yNjExMjcwNzM2MTVaGA8yMTI2
MTEwMzA3MzYxNVowGDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABIDA8uf8zurPKQCIVeBLboUpTYRBViAjfbBFILTdAvss
7Gn2g7XEsrOXuLwvhKyRYQavfHVKM7jtj0RteIYE7PejbTBrMB0GA1UdDgQWBBQ/
gbAIatQFg+iqghEMCCMDDgiaLzAfBgNVHSMEGDAWgBQ/gbAIatQFg+iqghEMCCMD
DgiaLzAPBgNVHRMBAf8EBTADAQH/MBgGA1UdEQQRMA+CDXJlY2VpdmVyLnRlc3Qw
CgYIKoZIzj0EAwIDSAAwRQIhAPm9rWfTg4rQG8hu42QqVM5Zoazwvvrs0FzBML37
6aHOAiBVJ0wRN5S4vf7gFva9lcXS1CUI39SwPXVbxnIDBkJkHA==
-----END CERTIFICATE-----
`;
