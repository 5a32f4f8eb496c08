import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A private CA and a server certificate it signed, as files in a test's own directory. */
export interface TestCertificates {
  /** PEM file of the CA (what `REDIS_TLS_CA_FILE` names). */
  readonly caFile: string;
  /** The CA's PEM text. */
  readonly ca: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** A second CA that signed nothing here: trusting only it must fail verification. */
  readonly otherCaFile: string;
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-nodes',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

/**
 * Makes, with `openssl` in `dir`, a CA and a server certificate for 127.0.0.1 and localhost (subjectAltName,
 * since clients check the address they dialled against it), usable by Redis both as server and, for
 * replication and the cluster bus, as client. EC P-256 keys keep it quick.
 */
export function makeCertificates(dir: string): TestCertificates {
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  writeFileSync(
    path.join(dir, 'server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,clientAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ].join('\n'),
  );
  openssl(
    [
      'req',
      '-new',
      '-nodes',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=localhost',
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ],
    dir,
  );
  const caFile = path.join(dir, 'ca.crt');
  return {
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    certFile: path.join(dir, 'server.crt'),
    keyFile: path.join(dir, 'server.key'),
    otherCaFile: path.join(dir, 'other-ca.crt'),
  };
}

/** Config lines that make a node speak TLS only, with these certificates, for clients, replication and the cluster bus. */
export function tlsLines(certs: TestCertificates): string[] {
  return [
    `tls-cert-file ${certs.certFile}`,
    `tls-key-file ${certs.keyFile}`,
    `tls-ca-cert-file ${certs.caFile}`,
    // Clients prove who they are with ACL credentials, not certificates.
    'tls-auth-clients no',
    'tls-replication yes',
  ];
}
