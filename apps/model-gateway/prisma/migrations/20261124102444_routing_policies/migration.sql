-- CreateEnum
CREATE TYPE "RoutingScope" AS ENUM ('organization', 'project', 'customer');

-- CreateTable
CREATE TABLE "routing_policies" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "slug" TEXT,
    "scope_type" "RoutingScope" NOT NULL DEFAULT 'organization',
    "project_id" UUID,
    "customer_id" UUID,
    "strategy" TEXT NOT NULL,
    "targets" JSONB NOT NULL,
    "allowed_vendors" TEXT[],
    "allowed_vendors_set" BOOLEAN NOT NULL DEFAULT false,
    "denied_vendors" TEXT[],
    "allowed_regions" TEXT[],
    "allowed_regions_set" BOOLEAN NOT NULL DEFAULT false,
    "zero_data_retention" BOOLEAN NOT NULL DEFAULT false,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "routing_policies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "routing_policies_organization_id_created_at_idx" ON "routing_policies"("organization_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "routing_policies_organization_id_slug_key" ON "routing_policies"("organization_id", "slug");
