// The egress-overhead benchmark's upstream, in a process of its own (so it
// does not share an event loop with the engine's proxy): an HTTPS server on
// 127.0.0.1 answering /big with 10 MiB and anything else with 1 KiB. Prints
// its port, then serves until killed.
//   node egress-server.mjs KEY_FILE CERT_FILE
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [keyFile, certFile] = process.argv.slice(2);
const big = Buffer.alloc(10 * 1024 * 1024, 'x');
const small = Buffer.alloc(1024, 'x');
const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
  const body = req.url === '/big' ? big : small;
  res.writeHead(200, { 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`port=${server.address().port}`));
