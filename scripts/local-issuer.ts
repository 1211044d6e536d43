import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

// A token issuer to try access tokens locally (docs/identity.md, "Try it locally"): on loopback, it serves an
// OpenID discovery document and the JWKS of a key made at start, and mints tokens for the asking at
// `GET /token?sub=<subject>&scope=<scopes>` (15 minutes, for `--audience`). For development only: anyone who
// reaches it gets any scope.
const { values } = parseArgs({ options: { port: { type: 'string', default: '4030' }, audience: { type: 'string', default: 'reward-gateway' } } });
const issuer = `http://127.0.0.1:${values.port}`;
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'local-1', alg: 'ES256', use: 'sig' }] };

const token = (sub: string, scope: string) =>
  new SignJWT({ scope })
    .setProtectedHeader({ alg: 'ES256', kid: 'local-1', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(values.audience)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(privateKey);

createServer((req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (url.pathname === '/.well-known/openid-configuration') return json({ issuer, jwks_uri: `${issuer}/jwks` });
  if (url.pathname === '/jwks') return json(jwks);
  if (url.pathname === '/token') {
    return void token(url.searchParams.get('sub') ?? 'developer', url.searchParams.get('scope') ?? '').then((jwt) => res.end(jwt));
  }
  res.writeHead(404).end();
}).listen(Number(values.port), '127.0.0.1', () =>
  console.log(`issuer ${issuer} (audience ${values.audience}): tokens at ${issuer}/token?sub=…&scope=…`),
);
