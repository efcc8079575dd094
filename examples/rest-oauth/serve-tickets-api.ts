import { ticketsApi } from './tickets-api';

// The REST API on its own: `TICKETS_API_KEY=… npx tsx examples/rest-oauth/serve-tickets-api.ts` (PORT, default 4000).
const server = ticketsApi(process.env.TICKETS_API_KEY ?? 'dev-key');
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  const address = server.address();
  console.error(`tickets API at http://127.0.0.1:${typeof address === 'object' && address ? address.port : '?'}`);
});
process.once('SIGTERM', () => process.exit(0));
