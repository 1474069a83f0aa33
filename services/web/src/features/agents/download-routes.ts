import type { Router } from 'express';
import { AppError } from '@ferry/core';
import { access, mount, routeTable, type MountedTable } from '@ferry/http';
import type { WebDeps } from '../../deps.js';
import { agentPackage, servedInstaller } from './agent-package.js';

/**
 * /agent/*: the local agent for `curl -fsSL <PUBLIC_URL>/agent/install.sh | sudo bash -s --
 * --dispatch`. Public: the agent's code is open and nothing here names a workspace or a secret
 * (the token is typed into the installer, never fetched). The tarball's URL carries its version,
 * so it may be cached for good; install.sh and latest.json name the current one and are not.
 */
export function agentDownloadTable({ config }: Pick<WebDeps, 'config'>): MountedTable {
  const routes = routeTable();
  const everyone = access.public('the local agent is open code; no workspace data or secret');
  const base = config.PUBLIC_URL;

  routes.get('/install.sh', everyone, (_req, res) => {
    const pkg = agentPackage();
    const script = servedInstaller(pkg.installer, {
      baseUrl: base,
      version: pkg.version,
      sha256: pkg.sha256,
    });
    res
      .set({
        'Content-Type': 'text/x-shellscript; charset=utf-8',
        'Cache-Control': 'no-cache',
        'Content-Disposition': 'inline; filename="install.sh"',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(script);
  });

  // What `install.sh --update` asks for: the newest tarball and its hash.
  routes.get('/latest.json', everyone, (_req, res) => {
    const pkg = agentPackage();
    res.set('Cache-Control', 'no-cache').json({
      version: pkg.version,
      sha256: pkg.sha256,
      url: `${base}/agent/${pkg.fileName}`,
    });
  });

  routes.get('/:file', everyone, (req, res) => {
    const pkg = agentPackage();
    if (req.params.file !== pkg.fileName) {
      throw new AppError(
        'not_found',
        `No such agent tarball. This Ferry serves ${pkg.fileName} (see /agent/latest.json).`,
      );
    }
    res
      .set({
        'Content-Type': 'application/gzip',
        'Cache-Control': 'public, max-age=31536000, immutable',
        'Content-Disposition': `attachment; filename="${pkg.fileName}"`,
        'X-Content-SHA256': pkg.sha256,
      })
      .send(pkg.bytes);
  });

  return { base: '/agent', table: routes };
}

/** The table as a router for web's mounts, at /agent (before the pages: no session, no CSRF). */
export function agentDownloadRoutes(deps: Pick<WebDeps, 'config'>): Router {
  return mount(agentDownloadTable(deps));
}
