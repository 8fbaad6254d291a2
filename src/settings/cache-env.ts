/**
 * The environment variables pi-ai reads for prompt caching, read once here so
 * the cost policy, the spare breakpoint and `/pruner report` agree:
 * `PI_CACHE_RETENTION` (`long`: one-hour markers; pi 1.6.0 passes no
 * `cacheRetention` of its own on main requests, so pi-ai reads this variable)
 * and `AWS_BEDROCK_FORCE_CACHE` (`1`: cache points for a Bedrock model whose id
 * names no Claude model).
 */

export interface CacheEnv {
  PI_CACHE_RETENTION?: string | undefined;
  AWS_BEDROCK_FORCE_CACHE?: string | undefined;
}

export function processCacheEnv(): CacheEnv {
  return { PI_CACHE_RETENTION: process.env.PI_CACHE_RETENTION, AWS_BEDROCK_FORCE_CACHE: process.env.AWS_BEDROCK_FORCE_CACHE };
}
