-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('production', 'test');

-- CreateTable
CREATE TABLE "linked_accounts" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "platform" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "end_user_origin_id" TEXT NOT NULL,
    "end_user_organization_name" TEXT NOT NULL,
    "end_user_email_address" TEXT,
    "remote_account_id" TEXT,
    "remote_account_name" TEXT,
    "account_token_hash" TEXT NOT NULL,
    "credentials_sealed" TEXT NOT NULL,
    "sync_frequency_seconds" INTEGER NOT NULL,
    "status_detail" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "linked_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "link_tokens" (
    "id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "created_by_key_id" TEXT NOT NULL,
    "platform" TEXT,
    "end_user_origin_id" TEXT NOT NULL,
    "end_user_organization_name" TEXT NOT NULL,
    "end_user_email_address" TEXT,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "completed_at" TIMESTAMPTZ(6),
    "public_token_hash" TEXT,
    "public_token_expires_at" TIMESTAMPTZ(6),
    "public_token_used_at" TIMESTAMPTZ(6),
    "linked_account_id" UUID,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "link_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "linked_account_id" UUID NOT NULL,
    "remote_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "modified_at" TIMESTAMPTZ(6) NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "remote_created_at" TIMESTAMPTZ(6),
    "start_time" TIMESTAMPTZ(6),
    "end_time" TIMESTAMPTZ(6),
    "emails" JSONB NOT NULL DEFAULT '[]',
    "messages" JSONB NOT NULL DEFAULT '[]',
    "field_mappings" JSONB,
    "remote_data" JSONB,
    "remote_was_deleted" BOOLEAN NOT NULL DEFAULT false,
    "is_shell" BOOLEAN NOT NULL DEFAULT false,
    "hash" TEXT,
    "last_run_id" UUID,
    "run_writes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "contacts" (
    "id" UUID NOT NULL,
    "linked_account_id" UUID NOT NULL,
    "remote_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "modified_at" TIMESTAMPTZ(6) NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "state" TEXT,
    "country" TEXT,
    "postal_code" TEXT,
    "remote_created_at" TIMESTAMPTZ(6),
    "remote_updated_at" TIMESTAMPTZ(6),
    "field_mappings" JSONB,
    "remote_data" JSONB,
    "remote_was_deleted" BOOLEAN NOT NULL DEFAULT false,
    "is_shell" BOOLEAN NOT NULL DEFAULT false,
    "hash" TEXT,
    "last_run_id" UUID,
    "run_writes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "contacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_contacts" (
    "event_id" UUID NOT NULL,
    "contact_id" UUID NOT NULL,
    "linked_account_id" UUID NOT NULL,

    CONSTRAINT "event_contacts_pkey" PRIMARY KEY ("event_id","contact_id")
);

-- CreateTable
CREATE TABLE "sync_statuses" (
    "linked_account_id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "last_sync_start" TIMESTAMPTZ(6),
    "last_sync_finished" TIMESTAMPTZ(6),
    "last_sync_result" TEXT,
    "next_sync_start" TIMESTAMPTZ(6),
    "is_initial_sync" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "sync_statuses_pkey" PRIMARY KEY ("linked_account_id","model")
);

-- CreateTable
CREATE TABLE "sync_runs" (
    "linked_account_id" UUID NOT NULL,
    "run_id" UUID,
    "kind" TEXT,
    "checkpoint" JSONB,
    "modified_since" TIMESTAMPTZ(6),
    "started_at" TIMESTAMPTZ(6),
    "pages_written" INTEGER NOT NULL DEFAULT 0,
    "last_success_started_at" TIMESTAMPTZ(6),
    "full_resync_requested" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "sync_runs_pkey" PRIMARY KEY ("linked_account_id")
);

-- CreateTable
CREATE TABLE "field_mappings" (
    "id" UUID NOT NULL,
    "linked_account_id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "target_field_name" TEXT NOT NULL,
    "remote_field_path" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "field_mappings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_outbox" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "linked_accounts_account_token_hash_key" ON "linked_accounts"("account_token_hash");

-- CreateIndex
CREATE INDEX "linked_accounts_organization_id_environment_created_at_idx" ON "linked_accounts"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "linked_accounts_organization_id_environment_end_user_origin_key" ON "linked_accounts"("organization_id", "environment", "end_user_origin_id");

-- CreateIndex
CREATE UNIQUE INDEX "link_tokens_token_hash_key" ON "link_tokens"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "link_tokens_public_token_hash_key" ON "link_tokens"("public_token_hash");

-- CreateIndex
CREATE INDEX "events_linked_account_id_created_at_id_idx" ON "events"("linked_account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_linked_account_id_modified_at_idx" ON "events"("linked_account_id", "modified_at");

-- CreateIndex
CREATE UNIQUE INDEX "events_linked_account_id_remote_id_key" ON "events"("linked_account_id", "remote_id");

-- CreateIndex
CREATE INDEX "contacts_linked_account_id_created_at_id_idx" ON "contacts"("linked_account_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "contacts_linked_account_id_remote_id_key" ON "contacts"("linked_account_id", "remote_id");

-- CreateIndex
CREATE INDEX "event_contacts_contact_id_idx" ON "event_contacts"("contact_id");

-- CreateIndex
CREATE UNIQUE INDEX "field_mappings_linked_account_id_model_target_field_name_key" ON "field_mappings"("linked_account_id", "model", "target_field_name");

-- CreateIndex
CREATE INDEX "event_outbox_next_attempt_at_idx" ON "event_outbox"("next_attempt_at");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_linked_account_id_fkey" FOREIGN KEY ("linked_account_id") REFERENCES "linked_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_linked_account_id_fkey" FOREIGN KEY ("linked_account_id") REFERENCES "linked_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_contacts" ADD CONSTRAINT "event_contacts_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_contacts" ADD CONSTRAINT "event_contacts_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_statuses" ADD CONSTRAINT "sync_statuses_linked_account_id_fkey" FOREIGN KEY ("linked_account_id") REFERENCES "linked_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_linked_account_id_fkey" FOREIGN KEY ("linked_account_id") REFERENCES "linked_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "field_mappings" ADD CONSTRAINT "field_mappings_linked_account_id_fkey" FOREIGN KEY ("linked_account_id") REFERENCES "linked_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
