import { randomUUID } from 'node:crypto';

/** A profile as the fake keeps it. */
export interface FakeProfile {
  id: string;
  email: string;
  properties: Record<string, unknown>;
  created: string;
  updated: string;
  lists: Set<string>;
  segments: Set<string>;
  /** Set only by a suppression job (the clean action); the fake never changes it otherwise. */
  suppressed: boolean;
}

export type JobStatus = 'queued' | 'processing' | 'complete' | 'cancelled';

export interface FakeImportJob {
  id: string;
  status: JobStatus;
  createdAt: string;
  completedAt?: string;
  profiles: { id?: string; email?: string; properties: Record<string, unknown> }[];
  failed: { index: number; code: string; title: string; detail: string }[];
  polls: number;
}

export interface FakeSuppressJob {
  id: string;
  status: JobStatus;
  createdAt: string;
  completedAt?: string;
  emails: string[];
  skipped: number;
  polls: number;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Klaviyo's timestamps: ISO 8601 with microseconds and +00:00, strictly increasing so `updated` orders every change. */
export class FakeClock {
  private lastMicros = 0;
  now(): string {
    const micros = Math.max(Date.now() * 1000, this.lastMicros + 1);
    this.lastMicros = micros;
    const iso = new Date(Math.floor(micros / 1000)).toISOString();
    return `${iso.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}+00:00`;
  }
}

/** Profiles, lists, segments and jobs of one fake account. */
export class FakeKlaviyoStore {
  readonly profiles = new Map<string, FakeProfile>();
  readonly lists = new Map<string, string>();
  readonly segments = new Map<string, string>();
  readonly importJobs = new Map<string, FakeImportJob>();
  readonly suppressJobs = new Map<string, FakeSuppressJob>();
  readonly clock = new FakeClock();
  private next = 1;

  /** A ULID-like profile id, as Klaviyo's look (26 characters). */
  private newId(): string {
    let n = this.next++;
    let id = '';
    for (let i = 0; i < 10; i++) {
      id = CROCKFORD[n % 32] + id;
      n = Math.floor(n / 32);
    }
    return `01H${'0'.repeat(13)}${id}`;
  }

  addProfile(email: string, options: { lists?: string[]; segments?: string[]; properties?: Record<string, unknown> } = {}): FakeProfile {
    const now = this.clock.now();
    const profile: FakeProfile = { id: this.newId(), email, properties: { ...(options.properties ?? {}) }, created: now, updated: now, lists: new Set(options.lists), segments: new Set(options.segments), suppressed: false };
    this.profiles.set(profile.id, profile);
    return profile;
  }

  byEmail(email: string): FakeProfile | undefined {
    const wanted = email.toLowerCase();
    for (const profile of this.profiles.values()) if (profile.email.toLowerCase() === wanted) return profile;
    return undefined;
  }

  /** Sets properties as Klaviyo does: null clears one; `updated` moves only when something changed. */
  setProperties(profile: FakeProfile, properties: Record<string, unknown>): boolean {
    let changed = false;
    for (const [name, value] of Object.entries(properties)) {
      if (value === null) {
        if (name in profile.properties) changed = true;
        delete profile.properties[name];
      } else if (JSON.stringify(profile.properties[name]) !== JSON.stringify(value)) {
        profile.properties[name] = value;
        changed = true;
      }
    }
    if (changed) profile.updated = this.clock.now();
    return changed;
  }

  newJobId = () => randomUUID().replace(/-/g, '').slice(0, 20);
}
