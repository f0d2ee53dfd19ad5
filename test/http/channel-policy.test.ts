import { describe, expect, it } from 'vitest';
import { ChannelRefusedError, classifyAddress, createChannelPolicy, normaliseChannelUrl } from '../../src/http/channel-policy.js';

const publicDns = async (host: string) =>
  host === 'rebind.example' ? ['93.184.216.34', '10.0.0.7'] : host === 'meta.example' ? ['169.254.169.254'] : ['93.184.216.34'];

function policy(allowed: string[], extra: { allowLocal?: boolean } = {}) {
  return createChannelPolicy({ allowed, allowLocal: extra.allowLocal ?? false, cwd: '/srv', resolveHost: publicDns });
}

async function refusal(p: ReturnType<typeof policy>, url: string): Promise<string> {
  try {
    await p.checkUrl(url);
  } catch (error) {
    expect(error).toBeInstanceOf(ChannelRefusedError);
    return (error as Error).message;
  }
  throw new Error(`${url} was allowed`);
}

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['fc12:3456::1', 'unique-local'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });
});

describe('normaliseChannelUrl', () => {
  it('drops credentials, tokens, query and trailing slashes', () => {
    expect(normaliseChannelUrl('https://user:pw@Conda.Anaconda.org/t/tk-123/conda-forge/?x=1#f')).toBe(
      'https://conda.anaconda.org/conda-forge',
    );
  });
});

describe('channel policy', () => {
  it('allows URLs under an allowlisted channel name, with or without a token', async () => {
    const p = policy(['conda-forge']);
    await expect(p.checkUrl('https://conda.anaconda.org/conda-forge')).resolves.toBeUndefined();
    await expect(p.checkUrl('https://conda.anaconda.org/conda-forge/linux-64/repodata.json')).resolves.toBeUndefined();
    await expect(p.checkUrl('https://conda.anaconda.org/t/secret-token/conda-forge/noarch/repodata.json')).resolves.toBeUndefined();
  });

  it('refuses a channel that only shares a prefix with an allowlisted one', async () => {
    const message = await refusal(policy(['conda-forge']), 'https://conda.anaconda.org/conda-forge-evil/linux-64/repodata.json');
    expect(message).toContain("not on this server's channel allowlist");
  });

  it('allows an allowlisted channel on loopback', async () => {
    await expect(
      policy(['http://127.0.0.1:8080/mirror']).checkUrl('http://127.0.0.1:8080/mirror/linux-64/repodata.json'),
    ).resolves.toBeUndefined();
  });

  it('refuses file URLs and paths unless local channels are enabled', async () => {
    expect(await refusal(policy(['conda-forge']), 'file:///etc/passwd')).toBe(
      'Cannot use channel URL "file:///etc/passwd": local channels are not enabled on this server',
    );
    await expect(
      policy(['conda-forge'], { allowLocal: true }).checkUrl('file:///srv/channel/linux-64/repodata.json'),
    ).resolves.toBeUndefined();
    // An allowlisted local path admits that channel only.
    const one = policy(['/srv/channel']);
    await expect(one.checkUrl('file:///srv/channel/noarch/repodata.json')).resolves.toBeUndefined();
    await refusal(one, 'file:///srv/other/noarch/repodata.json');
  });

  it('refuses other schemes', async () => {
    expect(await refusal(policy(['*']), 'ftp://example.org/chan')).toContain('the ftp scheme is not allowed');
  });

  it('with *, allows public https hosts and refuses plain http', async () => {
    const p = policy(['*']);
    await expect(p.checkUrl('https://repo.example.org/chan/linux-64/repodata.json')).resolves.toBeUndefined();
    expect(await refusal(p, 'http://repo.example.org/chan')).toContain('only https');
  });

  it.each([
    ['https://127.0.0.1/chan', 'loopback'],
    ['https://[::1]/chan', 'loopback'],
    ['https://localhost/chan', 'loopback'],
    ['https://api.localhost/chan', 'loopback'],
    ['https://10.0.0.1/chan', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[fd00::1]/chan', 'unique-local'],
    ['https://[::ffff:127.0.0.1]/chan', 'IPv4-mapped'],
    ['https://0x7f.1/chan', 'loopback'],
    ['https://meta.example/chan', 'the host name "meta.example" resolves to an address that is not public'],
    ['https://rebind.example/chan', 'the host name "rebind.example" resolves to an address that is not public'],
  ])('with *, refuses %s (%s)', async (url, why) => {
    const message = await refusal(policy(['*']), url);
    expect(message).toContain(why);
    // What a name resolved to is never shown (it would map the server's network).
    if (url.includes('.example/')) expect(message).not.toMatch(/169\.254|10\.0\.0\.7|93\.184|private|link-local/);
  });

  it('never shows credentials in a refusal', async () => {
    const message = await refusal(policy(['conda-forge']), 'https://alice:hunter2@example.org/t/tok-42/chan');
    expect(message).not.toMatch(/alice|hunter2|tok-42/);
  });

  it('refuses at connection time a host that now resolves to a private address', async () => {
    const p = policy(['conda-forge']);
    const result = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      p.lookup('localhost', { all: false }, (error) => resolve(error)),
    );
    expect(result).toBeInstanceOf(ChannelRefusedError);
    const allowlisted = createChannelPolicy({ allowed: ['http://localhost:1234/x'], allowLocal: false, cwd: '/' });
    const ok = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      allowlisted.lookup('localhost', { all: false }, (error) => resolve(error)),
    );
    expect(ok).toBeNull();
  });
});
