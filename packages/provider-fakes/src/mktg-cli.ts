#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startFakeEventbrite, EVENTBRITE_FAKE_TOKENS } from './eventbrite';
import { startFakeHubspot, HUBSPOT_FAKE_TOKENS } from './hubspot';
import { startFakeZoom, ZOOM_FAKE_CREDENTIALS } from './zoom';

/**
 * Runs the marketing-platform fakes in a process of their own, seeded, with their test controls on
 * (`/__fake/…`, see platform-control.ts): for the quick start, for trying the unified data API by
 * hand, and for benchmarks that keep the fakes off the load generator's event loop.
 *
 *   node packages/provider-fakes/dist/mktg-cli.js --events 100 --participants 20
 *
 * Prints one `KEY=value` line per setting (base URLs for PATCHBAY_MKTG_*_BASE_URL, tokens,
 * credentials), then `READY`, and runs until SIGINT/SIGTERM. Ports default to 8091 (HubSpot), 8092
 * (Zoom) and 8093 (Eventbrite), shifted by PATCHBAY_PORT_OFFSET; `--port 0` picks free ones.
 */

const USAGE = `Usage: mktg-cli [--platforms hubspot,zoom,eventbrite] [--events N] [--participants M]
                [--limits unlimited|published] [--port P]
  --platforms     which fakes to start (default all three)
  --events        events (webinars) to seed per platform (default 20)
  --participants  participants (registrants, attendees) per event (default 10)
  --limits        unlimited (default) or published: each platform's documented limits
  --port          first port; the others follow (default 8091 + PATCHBAY_PORT_OFFSET; 0: any free port)`;

/** A usage mistake: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

/**
 * Starts the fakes the arguments ask for, seeded, controls on. Returns the `KEY=value` lines to print
 * and a function that stops them all. Throws UsageError for bad arguments.
 */
/** Fixed OAuth apps, so the printed settings stay the same from one start to the next. */
const CLI_OAUTH_APPS = {
  hubspot: { clientId: 'fake-hubspot-client-id', clientSecret: 'fake-hubspot-client-secret' },
  zoom: { clientId: 'fake-zoom-oauth-client-id', clientSecret: 'fake-zoom-oauth-client-secret' },
  eventbrite: { clientId: 'fake-eventbrite-client-id', clientSecret: 'fake-eventbrite-client-secret' },
};

/** The unified-data settings of a platform's OAuth app (its "Sign in with" on the magic-link page). */
function oauthLines(platform: string, app: { clientId: string; clientSecret: string }, authorizeUrl: string, tokenUrl: string | null): string[] {
  const prefix = `PATCHBAY_MKTG_${platform}`;
  return [`${prefix}_CLIENT_ID=${app.clientId}`, `${prefix}_CLIENT_SECRET=${app.clientSecret}`, `${prefix}_AUTHORIZE_URL=${authorizeUrl}`, ...(tokenUrl ? [`${prefix}_TOKEN_URL=${tokenUrl}`] : [])];
}

export async function startMarketingFakes(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ lines: string[]; close(): Promise<void> }> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        platforms: { type: 'string', default: 'hubspot,zoom,eventbrite' },
        events: { type: 'string', default: '20' },
        participants: { type: 'string', default: '10' },
        limits: { type: 'string', default: 'unlimited' },
        port: { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const platforms = values.platforms.split(',').map((p) => p.trim());
  const unknown = platforms.filter((p) => !['hubspot', 'zoom', 'eventbrite'].includes(p));
  const events = Number(values.events);
  const per = Number(values.participants);
  const firstPort = values.port === undefined ? 8091 + Number(env.PATCHBAY_PORT_OFFSET ?? 0) : Number(values.port);
  const problems = [
    unknown.length > 0 ? `unknown platforms: ${unknown.join(', ')}` : '',
    !Number.isInteger(events) || events < 0 ? '--events must be a whole number' : '',
    !Number.isInteger(per) || per < 0 ? '--participants must be a whole number' : '',
    !['unlimited', 'published'].includes(values.limits) ? '--limits must be unlimited or published' : '',
    !Number.isInteger(firstPort) || firstPort < 0 || firstPort > 65533 ? '--port must be a port number' : '',
  ].filter(Boolean);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));

  const portOf = (i: number) => (firstPort === 0 ? 0 : firstPort + i);
  const published = values.limits === 'published';
  const lines: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    await Promise.all(closers.map((c) => c()));
  };
  try {
    if (platforms.includes('hubspot')) {
      const hs = await startFakeHubspot(undefined, { port: portOf(0), control: true, limits: published ? 'free' : 'unlimited', oauthApp: CLI_OAUTH_APPS.hubspot });
      closers.push(hs.close);
      hs.portal.seed({ events, participantsPerEvent: per });
      lines.push(
        `PATCHBAY_MKTG_HUBSPOT_BASE_URL=${hs.baseUrl}`,
        `HUBSPOT_ACCESS_TOKEN=${HUBSPOT_FAKE_TOKENS.valid}`,
        ...oauthLines('HUBSPOT', hs.oauth.app, hs.authorizeUrl, hs.oauthTokenUrl),
      );
    }
    if (platforms.includes('zoom')) {
      const zoom = await startFakeZoom({ port: portOf(1), control: true, limits: published ? 'pro' : 'unlimited', oauthApp: CLI_OAUTH_APPS.zoom });
      closers.push(zoom.close);
      zoom.account.seed({ webinars: events, registrantsPerWebinar: per });
      lines.push(
        `PATCHBAY_MKTG_ZOOM_BASE_URL=${zoom.baseUrl}`,
        `ZOOM_TOKEN_URL=${zoom.tokenUrl}`,
        `ZOOM_ACCOUNT_ID=${ZOOM_FAKE_CREDENTIALS.accountId}`,
        `ZOOM_CLIENT_ID=${ZOOM_FAKE_CREDENTIALS.clientId}`,
        `ZOOM_CLIENT_SECRET=${ZOOM_FAKE_CREDENTIALS.clientSecret}`,
        `PATCHBAY_MKTG_ZOOM_TOKEN_URL=${zoom.tokenUrl}`,
        ...oauthLines('ZOOM', zoom.oauth.app, zoom.authorizeUrl, null),
      );
    }
    if (platforms.includes('eventbrite')) {
      const eb = await startFakeEventbrite({ port: portOf(2), control: true, limits: published ? 'published' : 'unlimited', oauthApp: CLI_OAUTH_APPS.eventbrite });
      closers.push(eb.close);
      eb.account.seed({ events, attendeesPerEvent: per });
      lines.push(
        `PATCHBAY_MKTG_EVENTBRITE_BASE_URL=${eb.baseUrl}`,
        `EVENTBRITE_TOKEN=${EVENTBRITE_FAKE_TOKENS.valid}`,
        ...oauthLines('EVENTBRITE', eb.oauth.app, eb.authorizeUrl, eb.oauthTokenUrl),
      );
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { lines, close };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const fakes = await startMarketingFakes(args);
  process.stdout.write(`${fakes.lines.join('\n')}\nREADY\n`);
  const stop = () => void fakes.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(err instanceof UsageError ? `${err.message}\n\n${USAGE}\n` : `${(err as Error).message}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  });
}
