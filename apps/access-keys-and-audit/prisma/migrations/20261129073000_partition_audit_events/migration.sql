-- audit_events becomes a table partitioned by month on created_at, with an archive (issue 28). The spec
-- keeps audit events 90 days by default and lets "log endpoints pull older events past the retention
-- window": the retention job moves whole months past retention out of audit_events by detaching their
-- partition and attaching it to audit_event_archive (no row copied), and GET /api/v1/audit-log/ with an
-- earlier created_after reads the archive after the live table. Monthly: audit events are few per
-- organization, so a month is a small partition, and per-organization retention (organizations.
-- audit_retention_days) moves the rows of shorter-retention organizations one by one anyway.
--
-- A partitioned table's key must hold the partition key: (id, created_at). A queued event's id is the
-- producer's event id and its created_at the occurred_at the same job carries, so a redelivery still
-- meets its first copy (skipDuplicates: ON CONFLICT DO NOTHING).
--
-- The rows move in this transaction: rename, create the partitioned table with the same columns in the
-- same order, its partitions over the rows' months and two ahead (later ones are made by the retention
-- job; a DEFAULT partition catches a month with none), copy, drop the old table, then indexes and the
-- organization foreign key.
SET LOCAL TimeZone = 'UTC';

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "audit_retention_days" INTEGER;

ALTER TABLE "audit_events" RENAME TO "audit_events_unpartitioned";
ALTER TABLE "audit_events_unpartitioned" RENAME CONSTRAINT "audit_events_pkey" TO "audit_events_unpartitioned_pkey";
ALTER TABLE "audit_events_unpartitioned" DROP CONSTRAINT "audit_events_organization_id_fkey";
DROP INDEX "audit_events_organization_id_environment_created_at_idx";
DROP INDEX "audit_events_organization_id_environment_event_type_created_idx";

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "event_type" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_key_id" UUID,
    "target_key_id" UUID,
    "user_id" UUID,
    "resource_type" TEXT,
    "resource_id" TEXT,
    "source_service" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_member_id" UUID,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id","created_at")
) PARTITION BY RANGE ("created_at");

-- The archive: the same columns in the same order (a partition moves from one to the other as is).
-- CreateTable
CREATE TABLE "audit_event_archive" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "event_type" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_key_id" UUID,
    "target_key_id" UUID,
    "user_id" UUID,
    "resource_type" TEXT,
    "resource_id" TEXT,
    "source_service" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_member_id" UUID,

    CONSTRAINT "audit_event_archive_pkey" PRIMARY KEY ("id","created_at")
) PARTITION BY RANGE ("created_at");

CREATE TABLE "audit_events_default" PARTITION OF "audit_events" DEFAULT;
-- Rows archived one by one (an organization's shorter retention) wait here until their month's partition joins the archive.
CREATE TABLE "audit_event_archive_default" PARTITION OF "audit_event_archive" DEFAULT;

DO $$
DECLARE
  this_month timestamptz := date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  m timestamptz;
BEGIN
  SELECT date_trunc('month', min("created_at") AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' INTO m FROM "audit_events_unpartitioned";
  m := least(coalesce(m, this_month), this_month);
  WHILE m <= this_month + interval '2 months' LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "audit_events" FOR VALUES FROM (%L) TO (%L)',
      'audit_events_p' || to_char(m AT TIME ZONE 'UTC', 'YYYYMM'), m, m + interval '1 month');
    m := m + interval '1 month';
  END LOOP;
END
$$;

INSERT INTO "audit_events" ("id", "organization_id", "environment", "event_type", "actor_type", "actor_key_id", "target_key_id", "user_id",
    "resource_type", "resource_id", "source_service", "details", "created_at", "actor_member_id")
SELECT "id", "organization_id", "environment", "event_type", "actor_type", "actor_key_id", "target_key_id", "user_id",
    "resource_type", "resource_id", "source_service", "details", "created_at", "actor_member_id"
FROM "audit_events_unpartitioned";

DROP TABLE "audit_events_unpartitioned";

-- CreateIndex
CREATE INDEX "audit_events_organization_id_environment_created_at_idx" ON "audit_events"("organization_id", "environment", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_organization_id_environment_event_type_created_idx" ON "audit_events"("organization_id", "environment", "event_type", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_event_archive_organization_id_environment_created_at_idx" ON "audit_event_archive"("organization_id", "environment", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_event_archive_organization_id_environment_event_type__idx" ON "audit_event_archive"("organization_id", "environment", "event_type", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_event_archive" ADD CONSTRAINT "audit_event_archive_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
