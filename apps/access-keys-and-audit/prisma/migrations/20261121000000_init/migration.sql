-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'paid');

-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('production', 'test');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "plan" "Plan" NOT NULL DEFAULT 'free',
    "monthly_credits" INTEGER NOT NULL,
    "callback_origins" TEXT[],
    "environment_matching" BOOLEAN NOT NULL DEFAULT false,
    "mcp_rate_limit_per_minute" INTEGER NOT NULL DEFAULT 30,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_keys" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "environment" "Environment" NOT NULL,
    "name" TEXT,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "key_last4" TEXT NOT NULL,
    "scopes" TEXT[],
    "tool_packs_restricted" BOOLEAN NOT NULL DEFAULT false,
    "tool_pack_ids" UUID[],
    "users_restricted" BOOLEAN NOT NULL DEFAULT false,
    "registered_user_ids" UUID[],
    "expires_at" TIMESTAMPTZ(3),
    "is_master" BOOLEAN NOT NULL DEFAULT false,
    "service_account" TEXT,
    "created_by_key_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "regenerated_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by_key_id" UUID,

    CONSTRAINT "access_keys_pkey" PRIMARY KEY ("id")
);

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

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "access_keys_key_hash_key" ON "access_keys"("key_hash");

-- CreateIndex
CREATE INDEX "access_keys_organization_id_environment_created_at_idx" ON "access_keys"("organization_id", "environment", "created_at");

-- CreateIndex
CREATE INDEX "audit_events_organization_id_environment_created_at_idx" ON "audit_events"("organization_id", "environment", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_organization_id_environment_event_type_create_idx" ON "audit_events"("organization_id", "environment", "event_type", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "access_keys" ADD CONSTRAINT "access_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
